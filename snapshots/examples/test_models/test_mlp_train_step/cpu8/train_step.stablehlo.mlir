module @jit_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<256x256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256x256xf32>, %arg3: tensor<256xf32>, %arg4: tensor<256x256xf32>, %arg5: tensor<256xf32>, %arg6: tensor<32x256xf32>, %arg7: tensor<32x256xf32>) -> (tensor<256x256xf32> {jax.result_info = "result[0][0][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[0][0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[0][1][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[0][1][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<256x256xf32> {jax.result_info = "result[0][2][0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<256xf32> {jax.result_info = "result[0][2][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg6, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %3 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %6 = stablehlo.add %3, %5 : tensor<32x256xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %8 = call @relu(%7) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %11 = stablehlo.compare GT, %7, %10, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %12 = stablehlo.dot_general %8, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %14 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %18 = stablehlo.add %13, %17 : tensor<32x256xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %20 = call @relu(%19) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %23 = stablehlo.compare GT, %19, %22, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %24 = stablehlo.dot_general %20, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %26 = stablehlo.broadcast_in_dim %arg5, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %30 = stablehlo.add %25, %29 : tensor<32x256xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %32 = call @relu(%31) : (tensor<32x256xf32>) -> tensor<32x256xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %35 = stablehlo.compare GT, %31, %34, FLOAT : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xi1>
    %36 = sdy.sharding_constraint %arg7 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %37 = stablehlo.subtract %32, %36 : tensor<32x256xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %39 = stablehlo.multiply %38, %38 : tensor<32x256xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %43 = stablehlo.multiply %42, %38 : tensor<32x256xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %45 = stablehlo.reduce(%40 init: %cst_3) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x256xf32>, tensor<f32>) -> tensor<f32>
    %46 = sdy.sharding_constraint %45 <@mesh, []> : tensor<f32>
    %cst_4 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %47 = sdy.sharding_constraint %cst_4 <@mesh, []> : tensor<f32>
    %48 = stablehlo.divide %46, %47 : tensor<f32>
    %49 = sdy.sharding_constraint %48 <@mesh, []> : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %50 = sdy.sharding_constraint %cst_5 <@mesh, []> : tensor<f32>
    %cst_6 = stablehlo.constant dense<8.192000e+03> : tensor<f32>
    %51 = sdy.sharding_constraint %cst_6 <@mesh, []> : tensor<f32>
    %52 = stablehlo.divide %50, %51 : tensor<f32>
    %53 = sdy.sharding_constraint %52 <@mesh, []> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %56 = stablehlo.multiply %55, %44 : tensor<32x256xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %60 = stablehlo.select %35, %57, %59 : tensor<32x256xi1>, tensor<32x256xf32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.reduce(%61 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{}]> : tensor<256xf32>
    %64 = stablehlo.reshape %63 : (tensor<256xf32>) -> tensor<1x256xf32>
    %65 = sdy.sharding_constraint %64 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.reduce(%65 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{}]> : tensor<256xf32>
    %68 = stablehlo.dot_general %61, %20, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %70 = stablehlo.transpose %69, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %72 = stablehlo.dot_general %61, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %76 = stablehlo.select %23, %73, %75 : tensor<32x256xi1>, tensor<32x256xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %78 = stablehlo.reduce(%77 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{}]> : tensor<256xf32>
    %80 = stablehlo.reshape %79 : (tensor<256xf32>) -> tensor<1x256xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %82 = stablehlo.reduce(%81 init: %cst_12) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{}]> : tensor<256xf32>
    %84 = stablehlo.dot_general %77, %8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %86 = stablehlo.transpose %85, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %87 = sdy.sharding_constraint %86 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %88 = stablehlo.dot_general %77, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x256xf32>) -> tensor<32x256xf32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %90 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %91 = sdy.sharding_constraint %90 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %92 = stablehlo.select %11, %89, %91 : tensor<32x256xi1>, tensor<32x256xf32>
    %93 = sdy.sharding_constraint %92 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %94 = stablehlo.reduce(%93 init: %cst_14) applies stablehlo.add across dimensions = [0] : (tensor<32x256xf32>, tensor<f32>) -> tensor<256xf32>
    %95 = sdy.sharding_constraint %94 <@mesh, [{}]> : tensor<256xf32>
    %96 = stablehlo.reshape %95 : (tensor<256xf32>) -> tensor<1x256xf32>
    %97 = sdy.sharding_constraint %96 <@mesh, [{}, {}]> : tensor<1x256xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %98 = stablehlo.reduce(%97 init: %cst_15) applies stablehlo.add across dimensions = [0] : (tensor<1x256xf32>, tensor<f32>) -> tensor<256xf32>
    %99 = sdy.sharding_constraint %98 <@mesh, [{}]> : tensor<256xf32>
    %100 = stablehlo.dot_general %93, %arg6, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
    %101 = sdy.sharding_constraint %100 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %102 = stablehlo.transpose %101, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %103 = sdy.sharding_constraint %102 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_16 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %105 = sdy.sharding_constraint %104 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %106 = stablehlo.multiply %105, %103 : tensor<256x256xf32>
    %107 = sdy.sharding_constraint %106 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %108 = sdy.sharding_constraint %arg0 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %109 = stablehlo.subtract %108, %107 : tensor<256x256xf32>
    %110 = sdy.sharding_constraint %109 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_17 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %111 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %112 = sdy.sharding_constraint %111 <@mesh, [{}]> : tensor<256xf32>
    %113 = stablehlo.multiply %112, %99 : tensor<256xf32>
    %114 = sdy.sharding_constraint %113 <@mesh, [{}]> : tensor<256xf32>
    %115 = sdy.sharding_constraint %arg1 <@mesh, [{}]> : tensor<256xf32>
    %116 = stablehlo.subtract %115, %114 : tensor<256xf32>
    %117 = sdy.sharding_constraint %116 <@mesh, [{}]> : tensor<256xf32>
    %cst_18 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %118 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %119 = sdy.sharding_constraint %118 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %120 = stablehlo.multiply %119, %87 : tensor<256x256xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %122 = sdy.sharding_constraint %arg2 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %123 = stablehlo.subtract %122, %121 : tensor<256x256xf32>
    %124 = sdy.sharding_constraint %123 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_19 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %125 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %126 = sdy.sharding_constraint %125 <@mesh, [{}]> : tensor<256xf32>
    %127 = stablehlo.multiply %126, %83 : tensor<256xf32>
    %128 = sdy.sharding_constraint %127 <@mesh, [{}]> : tensor<256xf32>
    %129 = sdy.sharding_constraint %arg3 <@mesh, [{}]> : tensor<256xf32>
    %130 = stablehlo.subtract %129, %128 : tensor<256xf32>
    %131 = sdy.sharding_constraint %130 <@mesh, [{}]> : tensor<256xf32>
    %cst_20 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<256x256xf32>
    %133 = sdy.sharding_constraint %132 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %134 = stablehlo.multiply %133, %71 : tensor<256x256xf32>
    %135 = sdy.sharding_constraint %134 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %136 = sdy.sharding_constraint %arg4 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %137 = stablehlo.subtract %136, %135 : tensor<256x256xf32>
    %138 = sdy.sharding_constraint %137 <@mesh, [{}, {}]> : tensor<256x256xf32>
    %cst_21 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<256xf32>
    %140 = sdy.sharding_constraint %139 <@mesh, [{}]> : tensor<256xf32>
    %141 = stablehlo.multiply %140, %67 : tensor<256xf32>
    %142 = sdy.sharding_constraint %141 <@mesh, [{}]> : tensor<256xf32>
    %143 = sdy.sharding_constraint %arg5 <@mesh, [{}]> : tensor<256xf32>
    %144 = stablehlo.subtract %143, %142 : tensor<256xf32>
    %145 = sdy.sharding_constraint %144 <@mesh, [{}]> : tensor<256xf32>
    return %110, %117, %124, %131, %138, %145, %49 : tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<f32>
  }
  func.func private @relu(%arg0: tensor<32x256xf32>) -> tensor<32x256xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<32x256xf32>
    %2 = stablehlo.maximum %arg0, %1 : tensor<32x256xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<32x256xf32>
    return %3 : tensor<32x256xf32>
  }
}
