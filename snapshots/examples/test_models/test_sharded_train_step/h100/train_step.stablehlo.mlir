module @jit_train_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 0 : i32}, %arg1: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>, tf.aliasing_output = 1 : i32}, %arg2: tensor<256x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>, tf.aliasing_output = 2 : i32}, %arg3: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>, tf.aliasing_output = 3 : i32}, %arg4: tensor<32x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg5: tensor<32x256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<256x256xf32> {jax.result_info = "result[0][0][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<256xf32> {jax.result_info = "result[0][0][1]", sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<256x256xf32> {jax.result_info = "result[0][1][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, tensor<256xf32> {jax.result_info = "result[0][1][1]", sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"model"}]> : tensor<1x256xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %6 = stablehlo.add %1, %5 : tensor<32x256xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %8 = call @relu(%7) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %11 = stablehlo.compare GT, %7, %10, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %12 = stablehlo.dot_general %8, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %14 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {"model"}]> : tensor<1x256xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %18 = stablehlo.add %13, %17 : tensor<32x256xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %20 = call @relu(%19) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %23 = stablehlo.compare GT, %19, %22, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %24 = sdy.sharding_constraint %arg5 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %25 = stablehlo.subtract %20, %24 : tensor<32x256xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %27 = stablehlo.multiply %26, %26 : tensor<32x256xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %30 = sdy.sharding_constraint %29 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %31 = stablehlo.multiply %30, %26 : tensor<32x256xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%28 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x256xf32>, tensor<f32>) -> tensor<f32>
    %34 = sdy.sharding_constraint %33 <@mesh, []> : tensor<f32>
    %cst_3 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %35 = sdy.sharding_constraint %cst_3 <@mesh, []> : tensor<f32>
    %36 = stablehlo.divide %34, %35 : tensor<f32>
    %37 = sdy.sharding_constraint %36 <@mesh, []> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %38 = sdy.sharding_constraint %cst_4 <@mesh, []> : tensor<f32>
    %cst_5 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %39 = sdy.sharding_constraint %cst_5 <@mesh, []> : tensor<f32>
    %40 = stablehlo.divide %38, %39 : tensor<f32>
    %41 = sdy.sharding_constraint %40 <@mesh, []> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %44 = stablehlo.multiply %43, %32 : tensor<32x256xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %48 = stablehlo.select %23, %45, %47 : tensor<32x256xi1>, tensor<32x256xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{"model"}]> : tensor<256xf32>
    %52 = stablehlo.reshape %51 : (tensor<256xf32>) -> tensor<1x256xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{}, {"model"}]> : tensor<1x256xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.reduce(%53 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{"model"}]> : tensor<256xf32>
    %56 = stablehlo.dot_general %49, %8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{"model"}, {}]> : tensor<256x256xf32>
    %58 = stablehlo.transpose %57, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %60 = stablehlo.dot_general %49, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %64 = stablehlo.select %11, %61, %63 : tensor<32x256xi1>, tensor<32x256xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.reduce(%65 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{"model"}]> : tensor<256xf32>
    %68 = stablehlo.reshape %67 : (tensor<256xf32>) -> tensor<1x256xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}, {"model"}]> : tensor<1x256xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.reduce(%69 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{"model"}]> : tensor<256xf32>
    %72 = stablehlo.dot_general %65, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{"model"}, {}]> : tensor<256x256xf32>
    %74 = stablehlo.transpose %73, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %cst_12 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %78 = stablehlo.multiply %77, %75 : tensor<256x256xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %80 = stablehlo.subtract %arg0, %79 : tensor<256x256xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %cst_13 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{"model"}]> : tensor<256xf32>
    %84 = stablehlo.multiply %83, %71 : tensor<256xf32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{"model"}]> : tensor<256xf32>
    %86 = stablehlo.subtract %arg1, %85 : tensor<256xf32>
    %87 = sdy.sharding_constraint %86 <@mesh, [{"model"}]> : tensor<256xf32>
    %cst_14 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %90 = stablehlo.multiply %89, %59 : tensor<256x256xf32>
    %91 = sdy.sharding_constraint %90 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %92 = stablehlo.subtract %arg2, %91 : tensor<256x256xf32>
    %93 = sdy.sharding_constraint %92 <@mesh, [{}, {"model"}]> : tensor<256x256xf32>
    %cst_15 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %95 = sdy.sharding_constraint %94 <@mesh, [{"model"}]> : tensor<256xf32>
    %96 = stablehlo.multiply %95, %55 : tensor<256xf32>
    %97 = sdy.sharding_constraint %96 <@mesh, [{"model"}]> : tensor<256xf32>
    %98 = stablehlo.subtract %arg3, %97 : tensor<256xf32>
    %99 = sdy.sharding_constraint %98 <@mesh, [{"model"}]> : tensor<256xf32>
    return %81, %87, %93, %99, %37 : tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<32x256xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{"data"}, {"model"}]> : tensor<32x256xf32>
    return %3 : tensor<32x256xf32>
  }
}
