module @jit_update attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<64x64xf32> {tf.aliasing_output = 1 : i32}, %arg2: tensor<64x64xf32>) -> (tensor<i32> {jax.result_info = "result[0]['count']"}, tensor<64x64xf32> {jax.result_info = "result[0]['w']"}, tensor<f32> {jax.result_info = "result[1]['norm']"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg2 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<64x64xf32>
    %2 = stablehlo.add %arg1, %1 : tensor<64x64xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %3 = stablehlo.add %arg0, %c : tensor<i32>
    %4 = call @norm(%2) : (tensor<64x64xf32>) -> tensor<f32>
    return %3, %2, %4 : tensor<i32>, tensor<64x64xf32>, tensor<f32>
  }
  func.func private @norm(%arg0: tensor<64x64xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<64x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
