module @jit_train_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<128x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<128x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<16x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg5: tensor<16x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<128x128xf32> {jax.result_info = "result[0][0][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<128xf32> {jax.result_info = "result[0][0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<128x128xf32> {jax.result_info = "result[0][1][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<128xf32> {jax.result_info = "result[0][1][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<1x128xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<16x128xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %6 = stablehlo.add %1, %5 : tensor<16x128xf32>
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
    %24 = stablehlo.subtract %20, %arg5 : tensor<16x128xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %26 = stablehlo.multiply %25, %25 : tensor<16x128xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %30 = stablehlo.multiply %29, %25 : tensor<16x128xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%27 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x128xf32>, tensor<f32>) -> tensor<f32>
    %33 = sdy.sharding_constraint %32 <@mesh, []> : tensor<f32>
    %cst_3 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %34 = sdy.sharding_constraint %cst_3 <@mesh, []> : tensor<f32>
    %35 = stablehlo.divide %33, %34 : tensor<f32>
    %36 = sdy.sharding_constraint %35 <@mesh, []> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %37 = sdy.sharding_constraint %cst_4 <@mesh, []> : tensor<f32>
    %cst_5 = stablehlo.constant dense<2.048000e+03> : tensor<f32>
    %38 = sdy.sharding_constraint %cst_5 <@mesh, []> : tensor<f32>
    %39 = stablehlo.divide %37, %38 : tensor<f32>
    %40 = sdy.sharding_constraint %39 <@mesh, []> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %43 = stablehlo.multiply %42, %31 : tensor<16x128xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %46 = sdy.sharding_constraint %45 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %47 = stablehlo.select %23, %44, %46 : tensor<16x128xi1>, tensor<16x128xf32>
    %48 = sdy.sharding_constraint %47 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %49 = stablehlo.reduce(%48 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<16x128xf32>, tensor<f32>) -> tensor<128xf32>
    %50 = sdy.sharding_constraint %49 <@mesh, [{}]> : tensor<128xf32>
    %51 = stablehlo.reshape %50 : (tensor<128xf32>) -> tensor<1x128xf32>
    %52 = sdy.sharding_constraint %51 <@mesh, [{}, {}]> : tensor<1x128xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.reduce(%52 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x128xf32>, tensor<f32>) -> tensor<128xf32>
    %54 = sdy.sharding_constraint %53 <@mesh, [{}]> : tensor<128xf32>
    %55 = stablehlo.dot_general %48, %8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<128x128xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %57 = stablehlo.transpose %56, dims = [1, 0] : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %59 = stablehlo.dot_general %48, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<128x128xf32>) -> tensor<16x128xf32>
    %60 = sdy.sharding_constraint %59 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<16x128xf32>
    %62 = sdy.sharding_constraint %61 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %63 = stablehlo.select %11, %60, %62 : tensor<16x128xi1>, tensor<16x128xf32>
    %64 = sdy.sharding_constraint %63 <@mesh, [{}, {}]> : tensor<16x128xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16x128xf32>, tensor<f32>) -> tensor<128xf32>
    %66 = sdy.sharding_constraint %65 <@mesh, [{}]> : tensor<128xf32>
    %67 = stablehlo.reshape %66 : (tensor<128xf32>) -> tensor<1x128xf32>
    %68 = sdy.sharding_constraint %67 <@mesh, [{}, {}]> : tensor<1x128xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %69 = stablehlo.reduce(%68 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x128xf32>, tensor<f32>) -> tensor<128xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{}]> : tensor<128xf32>
    %71 = stablehlo.dot_general %64, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<128x128xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %73 = stablehlo.transpose %72, dims = [1, 0] : (tensor<128x128xf32>) -> tensor<128x128xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %cst_12 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<128x128xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %77 = stablehlo.multiply %76, %74 : tensor<128x128xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %79 = stablehlo.subtract %arg0, %78 : tensor<128x128xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %cst_13 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{}]> : tensor<128xf32>
    %83 = stablehlo.multiply %82, %70 : tensor<128xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{}]> : tensor<128xf32>
    %85 = stablehlo.subtract %arg1, %84 : tensor<128xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}]> : tensor<128xf32>
    %cst_14 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<128x128xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %89 = stablehlo.multiply %88, %58 : tensor<128x128xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %91 = stablehlo.subtract %arg2, %90 : tensor<128x128xf32>
    %92 = sdy.sharding_constraint %91 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %cst_15 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %93 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %94 = sdy.sharding_constraint %93 <@mesh, [{}]> : tensor<128xf32>
    %95 = stablehlo.multiply %94, %54 : tensor<128xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{}]> : tensor<128xf32>
    %97 = stablehlo.subtract %arg3, %96 : tensor<128xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{}]> : tensor<128xf32>
    return %80, %86, %92, %98, %36 : tensor<128x128xf32>, tensor<128xf32>, tensor<128x128xf32>, tensor<128xf32>, tensor<f32>
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
