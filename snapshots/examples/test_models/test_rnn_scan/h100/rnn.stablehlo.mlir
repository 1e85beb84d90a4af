module @jit_rnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x64xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<10x8x32xf32>) -> (tensor<10x8x64xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x64xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<10x8x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:6 = stablehlo.while(%iterArg = %arg2, %iterArg_1 = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %c, %iterArg_4 = %0, %iterArg_5 = %1) : tensor<10x8x32xf32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<i32>, tensor<8x64xf32>, tensor<10x8x64xf32>
    cond {
      %c_6 = stablehlo.constant dense<10> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<10x8x32xf32>, tensor<i32>) -> tensor<8x32xf32>
      %4:2 = func.call @closed_call(%iterArg_1, %iterArg_2, %iterArg_4, %3) : (tensor<64x64xf32>, tensor<32x64xf32>, tensor<8x64xf32>, tensor<8x32xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>)
      %5 = func.call @dynamic_update_index_in_dim(%iterArg_5, %4#1, %iterArg_3) : (tensor<10x8x64xf32>, tensor<8x64xf32>, tensor<i32>) -> tensor<10x8x64xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %iterArg_2, %6, %4#0, %5 : tensor<10x8x32xf32>, tensor<64x64xf32>, tensor<32x64xf32>, tensor<i32>, tensor<8x64xf32>, tensor<10x8x64xf32>
    }
    return %2#5 : tensor<10x8x64xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<10x8x32xf32>, %arg1: tensor<i32>) -> tensor<8x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 8, 32] : (tensor<10x8x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x8x32xf32>) -> tensor<8x32xf32>
    return %1 : tensor<8x32xf32>
  }
  func.func private @closed_call(%arg0: tensor<64x64xf32>, %arg1: tensor<32x64xf32>, %arg2: tensor<8x64xf32>, %arg3: tensor<8x32xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x64xf32>, tensor<64x64xf32>) -> tensor<8x64xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
    %2 = stablehlo.add %0, %1 : tensor<8x64xf32>
    %3 = stablehlo.tanh %2 : tensor<8x64xf32>
    return %3, %3 : tensor<8x64xf32>, tensor<8x64xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<10x8x64xf32>, %arg1: tensor<8x64xf32>, %arg2: tensor<i32>) -> tensor<10x8x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8x64xf32>) -> tensor<1x8x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<10x8x64xf32>, tensor<1x8x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<10x8x64xf32>
    return %1 : tensor<10x8x64xf32>
  }
}
