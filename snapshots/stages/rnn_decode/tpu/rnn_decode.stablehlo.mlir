module @jit_rnn_decode attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<12x4x16xf32>) -> (tensor<12x4xi32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12x4x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:6 = stablehlo.while(%iterArg = %arg2, %iterArg_1 = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %c, %iterArg_4 = %0, %iterArg_5 = %1) : tensor<12x4x16xf32>, tensor<32x32xf32>, tensor<16x32xf32>, tensor<i32>, tensor<4x32xf32>, tensor<12x4x32xf32>
    cond {
      %c_6 = stablehlo.constant dense<12> : tensor<i32>
      %4 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %4 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<12x4x16xf32>, tensor<i32>) -> tensor<4x16xf32>
      %5:2 = func.call @closed_call(%iterArg_1, %iterArg_2, %iterArg_4, %4) : (tensor<32x32xf32>, tensor<16x32xf32>, tensor<4x32xf32>, tensor<4x16xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>)
      %6 = func.call @dynamic_update_index_in_dim(%iterArg_5, %5#1, %iterArg_3) : (tensor<12x4x32xf32>, tensor<4x32xf32>, tensor<i32>) -> tensor<12x4x32xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %iterArg_2, %7, %5#0, %6 : tensor<12x4x16xf32>, tensor<32x32xf32>, tensor<16x32xf32>, tensor<i32>, tensor<4x32xf32>, tensor<12x4x32xf32>
    }
    %3 = call @argmax(%2#5) : (tensor<12x4x32xf32>) -> tensor<12x4xi32>
    return %3 : tensor<12x4xi32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<12x4x16xf32>, %arg1: tensor<i32>) -> tensor<4x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 4, 16] : (tensor<12x4x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4x16xf32>) -> tensor<4x16xf32>
    return %1 : tensor<4x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<32x32xf32>, %arg1: tensor<16x32xf32>, %arg2: tensor<4x32xf32>, %arg3: tensor<4x16xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x32xf32>, tensor<32x32xf32>) -> tensor<4x32xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x32xf32>
    %3 = stablehlo.tanh %2 : tensor<4x32xf32>
    return %3, %3 : tensor<4x32xf32>, tensor<4x32xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<12x4x32xf32>, %arg1: tensor<4x32xf32>, %arg2: tensor<i32>) -> tensor<12x4x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<4x32xf32>) -> tensor<1x4x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<12x4x32xf32>, tensor<1x4x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<12x4x32xf32>
    return %1 : tensor<12x4x32xf32>
  }
  func.func private @argmax(%arg0: tensor<12x4x32xf32>) -> tensor<12x4xi32> {
    %0 = stablehlo.iota dim = 2 : tensor<12x4x32xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [2] : (tensor<12x4x32xf32>, tensor<12x4x32xi32>, tensor<f32>, tensor<i32>) -> (tensor<12x4xf32>, tensor<12x4xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<12x4xi32>
  }
}
