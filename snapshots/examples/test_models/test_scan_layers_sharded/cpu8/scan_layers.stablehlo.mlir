module @jit_scan_layers attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<6x128x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"model"}]>}, %arg1: tensor<32x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<32x128xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg1) : tensor<6x128x128xf32>, tensor<i32>, tensor<32x128xf32>
    cond {
      %c_2 = stablehlo.constant dense<6> : tensor<i32>
      %3 = sdy.sharding_constraint %iterArg_0 <@mesh, []> : tensor<i32>
      %4 = sdy.sharding_constraint %c_2 <@mesh, []> : tensor<i32>
      %5 = stablehlo.compare LT, %3, %4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %3 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_0) : (tensor<6x128x128xf32>, tensor<i32>) -> tensor<128x128xf32>
      %4 = func.call @closed_call(%iterArg_1, %3) : (tensor<32x128xf32>, tensor<128x128xf32>) -> tensor<32x128xf32>
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %5 = sdy.sharding_constraint %iterArg_0 <@mesh, []> : tensor<i32>
      %6 = sdy.sharding_constraint %c_2 <@mesh, []> : tensor<i32>
      %7 = stablehlo.add %5, %6 : tensor<i32>
      %8 = sdy.sharding_constraint %7 <@mesh, []> : tensor<i32>
      stablehlo.return %iterArg, %8, %4 : tensor<6x128x128xf32>, tensor<i32>, tensor<32x128xf32>
    }
    %1 = sdy.sharding_constraint %0#1 <@mesh, []> : tensor<i32>
    %2 = sdy.sharding_constraint %0#2 <@mesh, [{"data"}, {}]> : tensor<32x128xf32>
    return %2 : tensor<32x128xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x128x128xf32>, %arg1: tensor<i32>) -> tensor<128x128xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 128, 128] : (tensor<6x128x128xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x128x128xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}, {"model"}]> : tensor<1x128x128xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x128x128xf32>) -> tensor<128x128xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {"model"}]> : tensor<128x128xf32>
    return %3 : tensor<128x128xf32>
  }
  func.func private @closed_call(%arg0: tensor<32x128xf32>, %arg1: tensor<128x128xf32>) -> tensor<32x128xf32> {
    %0 = sdy.sharding_constraint %arg1 <@mesh, [{}, {}]> : tensor<128x128xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x128xf32>, tensor<128x128xf32>) -> tensor<32x128xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"data"}, {}]> : tensor<32x128xf32>
    %3 = stablehlo.tanh %2 : tensor<32x128xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"data"}, {}]> : tensor<32x128xf32>
    return %4 : tensor<32x128xf32>
  }
}
