module @jit_apply attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg6: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg8: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<16x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = stablehlo.dot_general %arg8, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.reshape %arg4 : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %6 = stablehlo.add %1, %5 : tensor<16x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %8 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %10 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %14 = stablehlo.subtract %7, %13 : tensor<16x64xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %18 = stablehlo.add %11, %17 : tensor<1x64xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %20 = stablehlo.rsqrt %19 : tensor<1x64xf32>
    %21 = sdy.sharding_constraint %20 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %22 = stablehlo.reshape %arg3 : (tensor<64xf32>) -> tensor<1x64xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %24 = stablehlo.multiply %21, %23 : tensor<1x64xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %28 = stablehlo.multiply %15, %27 : tensor<16x64xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %30 = stablehlo.reshape %arg2 : (tensor<64xf32>) -> tensor<1x64xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %34 = stablehlo.add %29, %33 : tensor<16x64xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %36 = call @relu(%35) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %37 = stablehlo.dot_general %36, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %39 = stablehlo.reshape %arg6 : (tensor<8xf32>) -> tensor<1x8xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %43 = stablehlo.add %38, %42 : tensor<16x8xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{}, {}]> : tensor<16x8xf32>
    return %44 : tensor<16x8xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<16x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<16x64xf32>
    return %3 : tensor<16x64xf32>
  }
}
