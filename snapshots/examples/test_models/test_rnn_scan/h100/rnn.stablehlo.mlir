module @jit_rnn attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<10x8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<10x8x64xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<10x8x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}, {}]> : tensor<10x8x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4:6 = stablehlo.while(%iterArg = %arg2, %iterArg_1 = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %c, %iterArg_4 = %1, %iterArg_5 = %3) : tensor<10x8x32xf32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<i32>, tensor<8x64xf32>, tensor<10x8x64xf32>
    cond {
      %c_6 = stablehlo.constant dense<10> : tensor<i32>
      %8 = sdy.sharding_constraint %iterArg_3 <@mesh, []> : tensor<i32>
      %9 = sdy.sharding_constraint %c_6 <@mesh, []> : tensor<i32>
      %10 = stablehlo.compare LT, %8, %9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %8 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<10x8x32xf32>, tensor<i32>) -> tensor<8x32xf32>
      %9:2 = func.call @closed_call(%iterArg_1, %iterArg_2, %iterArg_4, %8) : (tensor<64x64xf32>, tensor<32x64xf32>, tensor<8x64xf32>, tensor<8x32xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>)
      %10 = func.call @dynamic_update_index_in_dim(%iterArg_5, %9#1, %iterArg_3) : (tensor<10x8x64xf32>, tensor<8x64xf32>, tensor<i32>) -> tensor<10x8x64xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %11 = sdy.sharding_constraint %iterArg_3 <@mesh, []> : tensor<i32>
      %12 = sdy.sharding_constraint %c_6 <@mesh, []> : tensor<i32>
      %13 = stablehlo.add %11, %12 : tensor<i32>
      %14 = sdy.sharding_constraint %13 <@mesh, []> : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %iterArg_2, %14, %9#0, %10 : tensor<10x8x32xf32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<i32>, tensor<8x64xf32>, tensor<10x8x64xf32>
    }
    %5 = sdy.sharding_constraint %4#3 <@mesh, []> : tensor<i32>
    %6 = sdy.sharding_constraint %4#4 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %7 = sdy.sharding_constraint %4#5 <@mesh, [{}, {}, {}]> : tensor<10x8x64xf32>
    return %7 : tensor<10x8x64xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<10x8x32xf32>, %arg1: tensor<i32>) -> tensor<8x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 8, 32] : (tensor<10x8x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x32xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}, {}]> : tensor<1x8x32xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x8x32xf32>) -> tensor<8x32xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<8x32xf32>
    return %3 : tensor<8x32xf32>
  }
  func.func private @closed_call(%arg0: tensor<64x64xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<8x64xf32>, %arg3: tensor<8x32xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %2 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %4 = stablehlo.add %1, %3 : tensor<8x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %6 = stablehlo.tanh %5 : tensor<8x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<8x64xf32>
    return %7, %7 : tensor<8x64xf32>, tensor<8x64xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<10x8x64xf32>, %arg1: tensor<8x64xf32>, %arg2: tensor<i32>) -> tensor<10x8x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8x64xf32>) -> tensor<1x8x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}, {}]> : tensor<1x8x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.dynamic_update_slice %arg0, %1, %arg2, %c, %c_0 : (tensor<10x8x64xf32>, tensor<1x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<10x8x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}, {}]> : tensor<10x8x64xf32>
    return %3 : tensor<10x8x64xf32>
  }
}
