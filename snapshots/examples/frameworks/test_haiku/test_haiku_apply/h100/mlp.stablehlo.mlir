module @jit_apply_fn attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg4: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.dot_general %arg4, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<64xf32>) -> tensor<16x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %4 = stablehlo.add %1, %3 : tensor<16x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %6 = call @relu(%5) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %7 = stablehlo.dot_general %6, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %8 = sdy.sharding_constraint %7 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %9 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<16x8xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %11 = stablehlo.add %8, %10 : tensor<16x8xf32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %13 = call @relu_0(%12) : (tensor<16x8xf32>) -> tensor<16x8xf32>
    return %13 : tensor<16x8xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<16x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x64xf32>
    return %3 : tensor<16x64xf32>
  }
  func.func private @relu_0(%arg0: tensor<16x8xf32>) -> tensor<16x8xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<16x8xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x8xf32>
    return %3 : tensor<16x8xf32>
  }
}
