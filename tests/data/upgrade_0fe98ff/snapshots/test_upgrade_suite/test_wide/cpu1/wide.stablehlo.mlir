module @jit_wide attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<512x2048xf32>) -> (tensor<2048xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.exponential %arg0 : tensor<512x2048xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<512x2048xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<512x2048xf32>
    %3 = stablehlo.add %2, %arg0 : tensor<512x2048xf32>
    %4 = stablehlo.tanh %3 : tensor<512x2048xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<512x2048xf32>, tensor<f32>) -> tensor<2048xf32>
    return %5 : tensor<2048xf32>
  }
}
