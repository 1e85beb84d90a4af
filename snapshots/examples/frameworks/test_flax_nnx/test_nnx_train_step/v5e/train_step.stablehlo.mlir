module @jit_train_step attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 0 : i32}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 1 : i32}, %arg2: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 2 : i32}, %arg3: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 3 : i32}, %arg4: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>, tf.aliasing_output = 4 : i32}, %arg5: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 5 : i32}, %arg6: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 6 : i32}, %arg7: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 7 : i32}, %arg8: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 8 : i32}, %arg9: tensor<64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 9 : i32}, %arg10: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 10 : i32}, %arg11: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>, tf.aliasing_output = 11 : i32}, %arg12: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, tf.aliasing_output = 12 : i32}, %arg13: tensor<ui32> {sdy.sharding = #sdy.sharding<@mesh, []>, tf.aliasing_output = 13 : i32}, %arg14: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg15: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<64xf32> {jax.result_info = "result[0][0].states[0][0]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x64xf32> {jax.result_info = "result[0][0].states[0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8xf32> {jax.result_info = "result[0][0].states[0][2]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[0][0].states[0][3]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<i32> {jax.result_info = "result[0][1].states[0][0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<64xf32> {jax.result_info = "result[0][1].states[0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x64xf32> {jax.result_info = "result[0][1].states[0][2]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8xf32> {jax.result_info = "result[0][1].states[0][3]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[0][1].states[0][4]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64xf32> {jax.result_info = "result[0][1].states[0][5]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x64xf32> {jax.result_info = "result[0][1].states[0][6]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8xf32> {jax.result_info = "result[0][1].states[0][7]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[0][1].states[0][8]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<ui32> {jax.result_info = "result[0][1].states[0][9]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<f32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg14, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<64xf32>) -> tensor<1x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %6 = stablehlo.add %1, %5 : tensor<16x64xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<16x64xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<16x64xf32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %11 = stablehlo.multiply %7, %7 : tensor<16x64xf32>
    %12 = sdy.sharding_constraint %11 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %15 = stablehlo.multiply %14, %12 : tensor<16x64xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %19 = stablehlo.multiply %18, %10 : tensor<16x64xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %21 = stablehlo.add %7, %20 : tensor<16x64xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %24 = sdy.sharding_constraint %23 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %25 = stablehlo.multiply %24, %22 : tensor<16x64xf32>
    %26 = sdy.sharding_constraint %25 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %27 = stablehlo.tanh %26 : tensor<16x64xf32>
    %28 = sdy.sharding_constraint %27 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %29 = sdy.sharding_constraint %cst_2 <@mesh, []> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %32 = stablehlo.subtract %31, %28 : tensor<16x64xf32>
    %33 = sdy.sharding_constraint %32 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %35 = sdy.sharding_constraint %34 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %36 = stablehlo.add %35, %28 : tensor<16x64xf32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %40 = stablehlo.multiply %39, %37 : tensor<16x64xf32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %42 = stablehlo.multiply %7, %41 : tensor<16x64xf32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %44 = stablehlo.dot_general %43, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %45 = sdy.sharding_constraint %44 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %46 = stablehlo.reshape %arg2 : (tensor<8xf32>) -> tensor<1x8xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %50 = stablehlo.add %45, %49 : tensor<16x8xf32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %52 = stablehlo.subtract %51, %arg15 : tensor<16x8xf32>
    %53 = sdy.sharding_constraint %52 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %54 = stablehlo.multiply %53, %53 : tensor<16x8xf32>
    %55 = sdy.sharding_constraint %54 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %58 = stablehlo.multiply %57, %53 : tensor<16x8xf32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %60 = stablehlo.reduce(%55 init: %cst_6) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
    %61 = sdy.sharding_constraint %60 <@mesh, []> : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %62 = sdy.sharding_constraint %cst_7 <@mesh, []> : tensor<f32>
    %63 = stablehlo.divide %61, %62 : tensor<f32>
    %64 = sdy.sharding_constraint %63 <@mesh, []> : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %65 = sdy.sharding_constraint %cst_8 <@mesh, []> : tensor<f32>
    %cst_9 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %66 = sdy.sharding_constraint %cst_9 <@mesh, []> : tensor<f32>
    %67 = stablehlo.divide %65, %66 : tensor<f32>
    %68 = sdy.sharding_constraint %67 <@mesh, []> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %70 = sdy.sharding_constraint %69 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %71 = stablehlo.multiply %70, %59 : tensor<16x8xf32>
    %72 = sdy.sharding_constraint %71 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %73 = stablehlo.reduce(%72 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %74 = sdy.sharding_constraint %73 <@mesh, [{}]> : tensor<8xf32>
    %75 = stablehlo.reshape %74 : (tensor<8xf32>) -> tensor<1x8xf32>
    %76 = sdy.sharding_constraint %75 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %77 = stablehlo.reshape %76 : (tensor<1x8xf32>) -> tensor<8xf32>
    %78 = sdy.sharding_constraint %77 <@mesh, [{}]> : tensor<8xf32>
    %79 = stablehlo.dot_general %72, %43, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %80 = sdy.sharding_constraint %79 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %81 = stablehlo.transpose %80, dims = [1, 0] : (tensor<8x64xf32>) -> tensor<64x8xf32>
    %82 = sdy.sharding_constraint %81 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %83 = stablehlo.dot_general %72, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<64x8xf32>) -> tensor<16x64xf32>
    %84 = sdy.sharding_constraint %83 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %85 = stablehlo.multiply %7, %84 : tensor<16x64xf32>
    %86 = sdy.sharding_constraint %85 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %87 = stablehlo.multiply %84, %41 : tensor<16x64xf32>
    %88 = sdy.sharding_constraint %87 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %90 = sdy.sharding_constraint %89 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %91 = stablehlo.multiply %90, %86 : tensor<16x64xf32>
    %92 = sdy.sharding_constraint %91 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %93 = stablehlo.multiply %92, %33 : tensor<16x64xf32>
    %94 = sdy.sharding_constraint %93 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %95 = stablehlo.multiply %94, %28 : tensor<16x64xf32>
    %96 = sdy.sharding_constraint %95 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %97 = stablehlo.add %94, %96 : tensor<16x64xf32>
    %98 = sdy.sharding_constraint %97 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_12 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %100 = sdy.sharding_constraint %99 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %101 = stablehlo.multiply %100, %98 : tensor<16x64xf32>
    %102 = sdy.sharding_constraint %101 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %103 = stablehlo.add %88, %102 : tensor<16x64xf32>
    %104 = sdy.sharding_constraint %103 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_13 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %105 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %106 = sdy.sharding_constraint %105 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %107 = stablehlo.multiply %106, %102 : tensor<16x64xf32>
    %108 = sdy.sharding_constraint %107 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %109 = stablehlo.multiply %108, %16 : tensor<16x64xf32>
    %110 = sdy.sharding_constraint %109 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %111 = stablehlo.add %104, %110 : tensor<16x64xf32>
    %112 = sdy.sharding_constraint %111 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %113 = stablehlo.reduce(%112 init: %cst_14) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %114 = sdy.sharding_constraint %113 <@mesh, [{}]> : tensor<64xf32>
    %115 = stablehlo.reshape %114 : (tensor<64xf32>) -> tensor<1x64xf32>
    %116 = sdy.sharding_constraint %115 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %117 = stablehlo.reshape %116 : (tensor<1x64xf32>) -> tensor<64xf32>
    %118 = sdy.sharding_constraint %117 <@mesh, [{}]> : tensor<64xf32>
    %119 = stablehlo.dot_general %112, %arg14, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
    %120 = sdy.sharding_constraint %119 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %121 = stablehlo.transpose %120, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %122 = sdy.sharding_constraint %121 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %123 = sdy.sharding_constraint %118 <@mesh, [{}]> : tensor<64xf32>
    %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %125 = sdy.sharding_constraint %124 <@mesh, [{}]> : tensor<64xf32>
    %126 = stablehlo.multiply %125, %123 : tensor<64xf32>
    %127 = sdy.sharding_constraint %126 <@mesh, [{}]> : tensor<64xf32>
    %cst_16 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %128 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %129 = sdy.sharding_constraint %128 <@mesh, [{}]> : tensor<64xf32>
    %130 = stablehlo.multiply %129, %arg5 : tensor<64xf32>
    %131 = sdy.sharding_constraint %130 <@mesh, [{}]> : tensor<64xf32>
    %132 = stablehlo.add %127, %131 : tensor<64xf32>
    %133 = sdy.sharding_constraint %132 <@mesh, [{}]> : tensor<64xf32>
    %134 = sdy.sharding_constraint %122 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %136 = sdy.sharding_constraint %135 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %137 = stablehlo.multiply %136, %134 : tensor<32x64xf32>
    %138 = sdy.sharding_constraint %137 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_18 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %140 = sdy.sharding_constraint %139 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %141 = stablehlo.multiply %140, %arg6 : tensor<32x64xf32>
    %142 = sdy.sharding_constraint %141 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %143 = stablehlo.add %138, %142 : tensor<32x64xf32>
    %144 = sdy.sharding_constraint %143 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %145 = sdy.sharding_constraint %78 <@mesh, [{}]> : tensor<8xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %146 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %147 = sdy.sharding_constraint %146 <@mesh, [{}]> : tensor<8xf32>
    %148 = stablehlo.multiply %147, %145 : tensor<8xf32>
    %149 = sdy.sharding_constraint %148 <@mesh, [{}]> : tensor<8xf32>
    %cst_20 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %150 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %151 = sdy.sharding_constraint %150 <@mesh, [{}]> : tensor<8xf32>
    %152 = stablehlo.multiply %151, %arg7 : tensor<8xf32>
    %153 = sdy.sharding_constraint %152 <@mesh, [{}]> : tensor<8xf32>
    %154 = stablehlo.add %149, %153 : tensor<8xf32>
    %155 = sdy.sharding_constraint %154 <@mesh, [{}]> : tensor<8xf32>
    %156 = sdy.sharding_constraint %82 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %158 = sdy.sharding_constraint %157 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %159 = stablehlo.multiply %158, %156 : tensor<64x8xf32>
    %160 = sdy.sharding_constraint %159 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_22 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %162 = sdy.sharding_constraint %161 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %163 = stablehlo.multiply %162, %arg8 : tensor<64x8xf32>
    %164 = sdy.sharding_constraint %163 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %165 = stablehlo.add %160, %164 : tensor<64x8xf32>
    %166 = sdy.sharding_constraint %165 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %167 = stablehlo.multiply %118, %118 : tensor<64xf32>
    %168 = sdy.sharding_constraint %167 <@mesh, [{}]> : tensor<64xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %170 = sdy.sharding_constraint %169 <@mesh, [{}]> : tensor<64xf32>
    %171 = stablehlo.multiply %170, %168 : tensor<64xf32>
    %172 = sdy.sharding_constraint %171 <@mesh, [{}]> : tensor<64xf32>
    %cst_24 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %173 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %174 = sdy.sharding_constraint %173 <@mesh, [{}]> : tensor<64xf32>
    %175 = stablehlo.multiply %174, %arg9 : tensor<64xf32>
    %176 = sdy.sharding_constraint %175 <@mesh, [{}]> : tensor<64xf32>
    %177 = stablehlo.add %172, %176 : tensor<64xf32>
    %178 = sdy.sharding_constraint %177 <@mesh, [{}]> : tensor<64xf32>
    %179 = stablehlo.multiply %122, %122 : tensor<32x64xf32>
    %180 = sdy.sharding_constraint %179 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_25 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %182 = sdy.sharding_constraint %181 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %183 = stablehlo.multiply %182, %180 : tensor<32x64xf32>
    %184 = sdy.sharding_constraint %183 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_26 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %186 = sdy.sharding_constraint %185 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %187 = stablehlo.multiply %186, %arg10 : tensor<32x64xf32>
    %188 = sdy.sharding_constraint %187 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %189 = stablehlo.add %184, %188 : tensor<32x64xf32>
    %190 = sdy.sharding_constraint %189 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %191 = stablehlo.multiply %78, %78 : tensor<8xf32>
    %192 = sdy.sharding_constraint %191 <@mesh, [{}]> : tensor<8xf32>
    %cst_27 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %193 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %194 = sdy.sharding_constraint %193 <@mesh, [{}]> : tensor<8xf32>
    %195 = stablehlo.multiply %194, %192 : tensor<8xf32>
    %196 = sdy.sharding_constraint %195 <@mesh, [{}]> : tensor<8xf32>
    %cst_28 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %197 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %198 = sdy.sharding_constraint %197 <@mesh, [{}]> : tensor<8xf32>
    %199 = stablehlo.multiply %198, %arg11 : tensor<8xf32>
    %200 = sdy.sharding_constraint %199 <@mesh, [{}]> : tensor<8xf32>
    %201 = stablehlo.add %196, %200 : tensor<8xf32>
    %202 = sdy.sharding_constraint %201 <@mesh, [{}]> : tensor<8xf32>
    %203 = stablehlo.multiply %82, %82 : tensor<64x8xf32>
    %204 = sdy.sharding_constraint %203 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_29 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %206 = sdy.sharding_constraint %205 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %207 = stablehlo.multiply %206, %204 : tensor<64x8xf32>
    %208 = sdy.sharding_constraint %207 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_30 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %209 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %210 = sdy.sharding_constraint %209 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %211 = stablehlo.multiply %210, %arg12 : tensor<64x8xf32>
    %212 = sdy.sharding_constraint %211 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %213 = stablehlo.add %208, %212 : tensor<64x8xf32>
    %214 = sdy.sharding_constraint %213 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %c = stablehlo.constant dense<2147483647> : tensor<i32>
    %215 = sdy.sharding_constraint %c <@mesh, []> : tensor<i32>
    %216 = stablehlo.compare LT, %arg4, %215, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_31 = stablehlo.constant dense<1> : tensor<i32>
    %217 = sdy.sharding_constraint %c_31 <@mesh, []> : tensor<i32>
    %218 = stablehlo.add %arg4, %217 : tensor<i32>
    %219 = sdy.sharding_constraint %218 <@mesh, []> : tensor<i32>
    %c_32 = stablehlo.constant dense<2147483647> : tensor<i32>
    %220 = call @_where(%216, %219, %c_32) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %cst_33 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %221 = stablehlo.convert %220 : (tensor<i32>) -> tensor<f32>
    %222 = sdy.sharding_constraint %cst_33 <@mesh, []> : tensor<f32>
    %223 = stablehlo.power %222, %221 : tensor<f32>
    %224 = sdy.sharding_constraint %223 <@mesh, []> : tensor<f32>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %225 = sdy.sharding_constraint %cst_34 <@mesh, []> : tensor<f32>
    %226 = stablehlo.subtract %225, %224 : tensor<f32>
    %227 = sdy.sharding_constraint %226 <@mesh, []> : tensor<f32>
    %228 = stablehlo.broadcast_in_dim %227, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %229 = sdy.sharding_constraint %228 <@mesh, [{}]> : tensor<64xf32>
    %230 = stablehlo.divide %133, %229 : tensor<64xf32>
    %231 = sdy.sharding_constraint %230 <@mesh, [{}]> : tensor<64xf32>
    %232 = stablehlo.broadcast_in_dim %227, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %233 = sdy.sharding_constraint %232 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %234 = stablehlo.divide %144, %233 : tensor<32x64xf32>
    %235 = sdy.sharding_constraint %234 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %236 = stablehlo.broadcast_in_dim %227, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %237 = sdy.sharding_constraint %236 <@mesh, [{}]> : tensor<8xf32>
    %238 = stablehlo.divide %155, %237 : tensor<8xf32>
    %239 = sdy.sharding_constraint %238 <@mesh, [{}]> : tensor<8xf32>
    %240 = stablehlo.broadcast_in_dim %227, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %241 = sdy.sharding_constraint %240 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %242 = stablehlo.divide %166, %241 : tensor<64x8xf32>
    %243 = sdy.sharding_constraint %242 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_35 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %244 = stablehlo.convert %220 : (tensor<i32>) -> tensor<f32>
    %245 = sdy.sharding_constraint %cst_35 <@mesh, []> : tensor<f32>
    %246 = stablehlo.power %245, %244 : tensor<f32>
    %247 = sdy.sharding_constraint %246 <@mesh, []> : tensor<f32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %248 = sdy.sharding_constraint %cst_36 <@mesh, []> : tensor<f32>
    %249 = stablehlo.subtract %248, %247 : tensor<f32>
    %250 = sdy.sharding_constraint %249 <@mesh, []> : tensor<f32>
    %251 = stablehlo.broadcast_in_dim %250, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %252 = sdy.sharding_constraint %251 <@mesh, [{}]> : tensor<64xf32>
    %253 = stablehlo.divide %178, %252 : tensor<64xf32>
    %254 = sdy.sharding_constraint %253 <@mesh, [{}]> : tensor<64xf32>
    %255 = stablehlo.broadcast_in_dim %250, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %256 = sdy.sharding_constraint %255 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %257 = stablehlo.divide %190, %256 : tensor<32x64xf32>
    %258 = sdy.sharding_constraint %257 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %259 = stablehlo.broadcast_in_dim %250, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %260 = sdy.sharding_constraint %259 <@mesh, [{}]> : tensor<8xf32>
    %261 = stablehlo.divide %202, %260 : tensor<8xf32>
    %262 = sdy.sharding_constraint %261 <@mesh, [{}]> : tensor<8xf32>
    %263 = stablehlo.broadcast_in_dim %250, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %264 = sdy.sharding_constraint %263 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %265 = stablehlo.divide %214, %264 : tensor<64x8xf32>
    %266 = sdy.sharding_constraint %265 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %267 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %268 = sdy.sharding_constraint %267 <@mesh, [{}]> : tensor<64xf32>
    %269 = stablehlo.add %254, %268 : tensor<64xf32>
    %270 = sdy.sharding_constraint %269 <@mesh, [{}]> : tensor<64xf32>
    %271 = stablehlo.sqrt %270 : tensor<64xf32>
    %272 = sdy.sharding_constraint %271 <@mesh, [{}]> : tensor<64xf32>
    %cst_38 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %273 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %274 = sdy.sharding_constraint %273 <@mesh, [{}]> : tensor<64xf32>
    %275 = stablehlo.add %272, %274 : tensor<64xf32>
    %276 = sdy.sharding_constraint %275 <@mesh, [{}]> : tensor<64xf32>
    %277 = stablehlo.divide %231, %276 : tensor<64xf32>
    %278 = sdy.sharding_constraint %277 <@mesh, [{}]> : tensor<64xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %279 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %280 = sdy.sharding_constraint %279 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %281 = stablehlo.add %258, %280 : tensor<32x64xf32>
    %282 = sdy.sharding_constraint %281 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %283 = stablehlo.sqrt %282 : tensor<32x64xf32>
    %284 = sdy.sharding_constraint %283 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_40 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %285 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %286 = sdy.sharding_constraint %285 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %287 = stablehlo.add %284, %286 : tensor<32x64xf32>
    %288 = sdy.sharding_constraint %287 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %289 = stablehlo.divide %235, %288 : tensor<32x64xf32>
    %290 = sdy.sharding_constraint %289 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %291 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %292 = sdy.sharding_constraint %291 <@mesh, [{}]> : tensor<8xf32>
    %293 = stablehlo.add %262, %292 : tensor<8xf32>
    %294 = sdy.sharding_constraint %293 <@mesh, [{}]> : tensor<8xf32>
    %295 = stablehlo.sqrt %294 : tensor<8xf32>
    %296 = sdy.sharding_constraint %295 <@mesh, [{}]> : tensor<8xf32>
    %cst_42 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %297 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %298 = sdy.sharding_constraint %297 <@mesh, [{}]> : tensor<8xf32>
    %299 = stablehlo.add %296, %298 : tensor<8xf32>
    %300 = sdy.sharding_constraint %299 <@mesh, [{}]> : tensor<8xf32>
    %301 = stablehlo.divide %239, %300 : tensor<8xf32>
    %302 = sdy.sharding_constraint %301 <@mesh, [{}]> : tensor<8xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %303 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %304 = sdy.sharding_constraint %303 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %305 = stablehlo.add %266, %304 : tensor<64x8xf32>
    %306 = sdy.sharding_constraint %305 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %307 = stablehlo.sqrt %306 : tensor<64x8xf32>
    %308 = sdy.sharding_constraint %307 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_44 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %309 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %310 = sdy.sharding_constraint %309 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %311 = stablehlo.add %308, %310 : tensor<64x8xf32>
    %312 = sdy.sharding_constraint %311 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %313 = stablehlo.divide %243, %312 : tensor<64x8xf32>
    %314 = sdy.sharding_constraint %313 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_45 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %315 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %316 = sdy.sharding_constraint %315 <@mesh, [{}]> : tensor<64xf32>
    %317 = stablehlo.multiply %316, %arg0 : tensor<64xf32>
    %318 = sdy.sharding_constraint %317 <@mesh, [{}]> : tensor<64xf32>
    %319 = stablehlo.add %278, %318 : tensor<64xf32>
    %320 = sdy.sharding_constraint %319 <@mesh, [{}]> : tensor<64xf32>
    %cst_46 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %321 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %322 = sdy.sharding_constraint %321 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %323 = stablehlo.multiply %322, %arg1 : tensor<32x64xf32>
    %324 = sdy.sharding_constraint %323 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %325 = stablehlo.add %290, %324 : tensor<32x64xf32>
    %326 = sdy.sharding_constraint %325 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_47 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %327 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %328 = sdy.sharding_constraint %327 <@mesh, [{}]> : tensor<8xf32>
    %329 = stablehlo.multiply %328, %arg2 : tensor<8xf32>
    %330 = sdy.sharding_constraint %329 <@mesh, [{}]> : tensor<8xf32>
    %331 = stablehlo.add %302, %330 : tensor<8xf32>
    %332 = sdy.sharding_constraint %331 <@mesh, [{}]> : tensor<8xf32>
    %cst_48 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %333 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %334 = sdy.sharding_constraint %333 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %335 = stablehlo.multiply %334, %arg3 : tensor<64x8xf32>
    %336 = sdy.sharding_constraint %335 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %337 = stablehlo.add %314, %336 : tensor<64x8xf32>
    %338 = sdy.sharding_constraint %337 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_49 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %339 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %340 = sdy.sharding_constraint %339 <@mesh, [{}]> : tensor<64xf32>
    %341 = stablehlo.multiply %340, %320 : tensor<64xf32>
    %342 = sdy.sharding_constraint %341 <@mesh, [{}]> : tensor<64xf32>
    %cst_50 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %343 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %344 = sdy.sharding_constraint %343 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %345 = stablehlo.multiply %344, %326 : tensor<32x64xf32>
    %346 = sdy.sharding_constraint %345 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_51 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %347 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %348 = sdy.sharding_constraint %347 <@mesh, [{}]> : tensor<8xf32>
    %349 = stablehlo.multiply %348, %332 : tensor<8xf32>
    %350 = sdy.sharding_constraint %349 <@mesh, [{}]> : tensor<8xf32>
    %cst_52 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %351 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %352 = sdy.sharding_constraint %351 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %353 = stablehlo.multiply %352, %338 : tensor<64x8xf32>
    %354 = sdy.sharding_constraint %353 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %355 = stablehlo.add %arg0, %342 : tensor<64xf32>
    %356 = sdy.sharding_constraint %355 <@mesh, [{}]> : tensor<64xf32>
    %357 = stablehlo.add %arg1, %346 : tensor<32x64xf32>
    %358 = sdy.sharding_constraint %357 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %359 = stablehlo.add %arg2, %350 : tensor<8xf32>
    %360 = sdy.sharding_constraint %359 <@mesh, [{}]> : tensor<8xf32>
    %361 = stablehlo.add %arg3, %354 : tensor<64x8xf32>
    %362 = sdy.sharding_constraint %361 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %c_53 = stablehlo.constant dense<1> : tensor<ui32>
    %363 = sdy.sharding_constraint %c_53 <@mesh, []> : tensor<ui32>
    %364 = stablehlo.add %arg13, %363 : tensor<ui32>
    %365 = sdy.sharding_constraint %364 <@mesh, []> : tensor<ui32>
    return %356, %358, %360, %362, %220, %133, %144, %155, %166, %178, %190, %202, %214, %365, %64 : tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<i32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<ui32>, tensor<f32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<i32>
    return %1 : tensor<i32>
  }
}
