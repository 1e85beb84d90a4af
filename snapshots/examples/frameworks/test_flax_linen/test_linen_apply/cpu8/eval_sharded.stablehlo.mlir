module @jit_apply attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>, %arg3: tensor<64xf32>, %arg4: tensor<64xf32>, %arg5: tensor<32x64xf32>, %arg6: tensor<8xf32>, %arg7: tensor<64x8xf32>, %arg8: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.dot_general %arg8, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.reshape %arg4 : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %5 = stablehlo.add %1, %4 : tensor<16x64xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %7 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %8 = sdy.sharding_constraint %7 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %9 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %13 = stablehlo.subtract %6, %12 : tensor<16x64xf32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %cst = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %17 = stablehlo.add %10, %16 : tensor<1x64xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %19 = stablehlo.rsqrt %18 : tensor<1x64xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %21 = stablehlo.reshape %arg3 : (tensor<64xf32>) -> tensor<1x64xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %23 = stablehlo.multiply %20, %22 : tensor<1x64xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %27 = stablehlo.multiply %14, %26 : tensor<16x64xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %29 = stablehlo.reshape %arg2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %32 = stablehlo.add %28, %31 : tensor<16x64xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %34 = call @relu(%33) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %35 = stablehlo.dot_general %34, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %37 = stablehlo.reshape %arg6 : (tensor<8xf32>) -> tensor<1x8xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    %40 = stablehlo.add %36, %39 : tensor<16x8xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{"data"}, {}]> : tensor<16x8xf32>
    return %41 : tensor<16x8xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<16x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{"data"}, {}]> : tensor<16x64xf32>
    return %3 : tensor<16x64xf32>
  }
}
