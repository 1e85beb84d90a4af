module @jit_mlp attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<256x256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<256x256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<16x256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<16x256xbf16> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xbf16>, tensor<256x256xbf16>) -> tensor<16x256xbf16>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xbf16>) -> tensor<1x256xbf16>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<1x256xbf16>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x256xbf16>) -> tensor<16x256xbf16>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    %6 = stablehlo.add %1, %5 : tensor<16x256xbf16>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    %8 = call @relu(%7) : (tensor<16x256xbf16>) -> tensor<16x256xbf16>
    %9 = stablehlo.dot_general %8, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xbf16>, tensor<256x256xbf16>) -> tensor<16x256xbf16>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    %11 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<256xbf16>) -> tensor<1x256xbf16>
    %12 = sdy.sharding_constraint %11 <@mesh, [{}, {}]> : tensor<1x256xbf16>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x256xbf16>) -> tensor<16x256xbf16>
    %14 = sdy.sharding_constraint %13 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    %15 = stablehlo.add %10, %14 : tensor<16x256xbf16>
    %16 = sdy.sharding_constraint %15 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    %17 = call @relu(%16) : (tensor<16x256xbf16>) -> tensor<16x256xbf16>
    return %17 : tensor<16x256xbf16>
  }
  func.func private @relu(%arg0: tensor<16x256xbf16>) -> tensor<16x256xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<16x256xbf16>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    %2 = stablehlo.maximum %arg0, %1 : tensor<16x256xbf16>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x256xbf16>
    return %3 : tensor<16x256xbf16>
  }
}
