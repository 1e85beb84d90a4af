module @jit_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<128x128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<128x128xf32>, %arg3: tensor<128xf32>, %arg4: tensor<16x128xf32>, %arg5: tensor<16x128xf32>) -> (tensor<128x128xf32> {jax.result_info = "result[0][0][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<128xf32> {jax.result_info = "result[0][0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<128x128xf32> {jax.result_info = "result[0][1][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<128xf32> {jax.result_info = "result[0][1][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<1x128xf32>
    %3 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<16x128xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %6 = stablehlo.add %3, %5 : tensor<16x128xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %8 = call @relu(%7) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %11 = stablehlo.compare GT, %7, %10, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %12 = stablehlo.dot_general %8, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %14 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<1x128xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<16x128xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %18 = stablehlo.add %13, %17 : tensor<16x128xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %20 = call @relu(%19) : (tensor<16x128xf32>) -> tensor<16x128xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %23 = stablehlo.compare GT, %19, %22, FLOAT : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xi1>
    %24 = sdy.sharding_constraint %arg5 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %25 = stablehlo.subtract %20, %24 : tensor<16x128xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %27 = stablehlo.multiply %26, %26 : tensor<16x128xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %30 = sdy.sharding_constraint %29 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %31 = stablehlo.multiply %30, %26 : tensor<16x128xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%28 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<f32>
    %34 = sdy.sharding_constraint %33 <@mesh, []> : tensor<f32>
    %cst_3 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %35 = sdy.sharding_constraint %cst_3 <@mesh, []> : tensor<f32>
    %36 = stablehlo.divide %34, %35 : tensor<f32>
    %37 = sdy.sharding_constraint %36 <@mesh, []> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %38 = sdy.sharding_constraint %cst_4 <@mesh, []> : tensor<f32>
    %cst_5 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %39 = sdy.sharding_constraint %cst_5 <@mesh, []> : tensor<f32>
    %40 = stablehlo.divide %38, %39 : tensor<f32>
    %41 = sdy.sharding_constraint %40 <@mesh, []> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %44 = stablehlo.multiply %43, %32 : tensor<16x128xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %48 = stablehlo.select %23, %45, %47 : tensor<16x128xi1>, tensor<16x128xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<16x128xf32>, tensor<f32>) -> tensor<128xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{}]> : tensor<128xf32>
    %52 = stablehlo.reshape %51 : (tensor<128xf32>) -> tensor<1x128xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{}, {}]> : tensor<1x128xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.reduce(%53 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x128xf32>, tensor<f32>) -> tensor<128xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{}]> : tensor<128xf32>
    %56 = stablehlo.dot_general %49, %8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<128x128xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %58 = stablehlo.transpose %57, dims = [1, 0] : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %60 = stablehlo.dot_general %49, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %64 = stablehlo.select %11, %61, %63 : tensor<16x128xi1>, tensor<16x128xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.reduce(%65 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16x128xf32>, tensor<f32>) -> tensor<128xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{}]> : tensor<128xf32>
    %68 = stablehlo.reshape %67 : (tensor<128xf32>) -> tensor<1x128xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}, {}]> : tensor<1x128xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.reduce(%69 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x128xf32>, tensor<f32>) -> tensor<128xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}]> : tensor<128xf32>
    %72 = stablehlo.dot_general %65, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<128x128xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %74 = stablehlo.transpose %73, dims = [1, 0] : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %cst_12 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<128x128xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %78 = stablehlo.multiply %77, %75 : tensor<128x128xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %80 = sdy.sharding_constraint %arg0 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %81 = stablehlo.subtract %80, %79 : tensor<128x128xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %cst_13 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{}]> : tensor<128xf32>
    %85 = stablehlo.multiply %84, %71 : tensor<128xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}]> : tensor<128xf32>
    %87 = sdy.sharding_constraint %arg1 <@mesh, [{}]> : tensor<128xf32>
    %88 = stablehlo.subtract %87, %86 : tensor<128xf32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{}]> : tensor<128xf32>
    %cst_14 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<128x128xf32>
    %91 = sdy.sharding_constraint %90 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %92 = stablehlo.multiply %91, %59 : tensor<128x128xf32>
    %93 = sdy.sharding_constraint %92 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %94 = sdy.sharding_constraint %arg2 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %95 = stablehlo.subtract %94, %93 : tensor<128x128xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %cst_15 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %97 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{}]> : tensor<128xf32>
    %99 = stablehlo.multiply %98, %55 : tensor<128xf32>
    %100 = sdy.sharding_constraint %99 <@mesh, [{}]> : tensor<128xf32>
    %101 = sdy.sharding_constraint %arg3 <@mesh, [{}]> : tensor<128xf32>
    %102 = stablehlo.subtract %101, %100 : tensor<128xf32>
    %103 = sdy.sharding_constraint %102 <@mesh, [{}]> : tensor<128xf32>
    return %82, %89, %96, %103, %37 : tensor<128x128xf32>, tensor<128xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<16x128xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x128xf32>
    return %3 : tensor<16x128xf32>
  }
}
