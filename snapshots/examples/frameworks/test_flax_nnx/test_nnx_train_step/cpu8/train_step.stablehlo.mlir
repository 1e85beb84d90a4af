module @jit_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  sdy.mesh @mesh = <["data"=4, "model"=2]> {stablehlo.mesh = {axes = [{name = "data", size = 4 : i64}, {name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<32x64xf32> {tf.aliasing_output = 1 : i32}, %arg2: tensor<8xf32> {tf.aliasing_output = 2 : i32}, %arg3: tensor<64x8xf32> {tf.aliasing_output = 3 : i32}, %arg4: tensor<i32> {sdy.sharding = #sdy.sharding<@empty_mesh, []>, tf.aliasing_output = 4 : i32}, %arg5: tensor<64xf32> {tf.aliasing_output = 5 : i32}, %arg6: tensor<32x64xf32> {tf.aliasing_output = 6 : i32}, %arg7: tensor<8xf32> {tf.aliasing_output = 7 : i32}, %arg8: tensor<64x8xf32> {tf.aliasing_output = 8 : i32}, %arg9: tensor<64xf32> {tf.aliasing_output = 9 : i32}, %arg10: tensor<32x64xf32> {tf.aliasing_output = 10 : i32}, %arg11: tensor<8xf32> {tf.aliasing_output = 11 : i32}, %arg12: tensor<64x8xf32> {tf.aliasing_output = 12 : i32}, %arg13: tensor<ui32> {sdy.sharding = #sdy.sharding<@empty_mesh, []>, tf.aliasing_output = 13 : i32}, %arg14: tensor<16x32xf32>, %arg15: tensor<16x8xf32>) -> (tensor<64xf32> {jax.result_info = "result[0][0].states[0][0]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x64xf32> {jax.result_info = "result[0][0].states[0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8xf32> {jax.result_info = "result[0][0].states[0][2]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[0][0].states[0][3]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<i32> {jax.result_info = "result[0][1].states[0][0]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<64xf32> {jax.result_info = "result[0][1].states[0][1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x64xf32> {jax.result_info = "result[0][1].states[0][2]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8xf32> {jax.result_info = "result[0][1].states[0][3]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[0][1].states[0][4]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<64xf32> {jax.result_info = "result[0][1].states[0][5]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x64xf32> {jax.result_info = "result[0][1].states[0][6]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8xf32> {jax.result_info = "result[0][1].states[0][7]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<64x8xf32> {jax.result_info = "result[0][1].states[0][8]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<ui32> {jax.result_info = "result[0][1].states[0][9]", sdy.sharding = #sdy.sharding<@mesh, []>}, tensor<f32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg14, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = sdy.sharding_constraint %0 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %5 = stablehlo.add %2, %4 : tensor<16x64xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %7 = stablehlo.multiply %6, %6 : tensor<16x64xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<16x64xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %10 = stablehlo.multiply %6, %6 : tensor<16x64xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %13 = sdy.sharding_constraint %12 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %14 = stablehlo.multiply %13, %11 : tensor<16x64xf32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %18 = stablehlo.multiply %17, %9 : tensor<16x64xf32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %20 = stablehlo.add %6, %19 : tensor<16x64xf32>
    %21 = sdy.sharding_constraint %20 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %24 = stablehlo.multiply %23, %21 : tensor<16x64xf32>
    %25 = sdy.sharding_constraint %24 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %26 = stablehlo.tanh %25 : tensor<16x64xf32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = sdy.sharding_constraint %cst_2 <@mesh, []> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %30 = sdy.sharding_constraint %29 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %31 = stablehlo.subtract %30, %27 : tensor<16x64xf32>
    %32 = sdy.sharding_constraint %31 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %34 = sdy.sharding_constraint %33 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %35 = stablehlo.add %34, %27 : tensor<16x64xf32>
    %36 = sdy.sharding_constraint %35 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %38 = sdy.sharding_constraint %37 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %39 = stablehlo.multiply %38, %36 : tensor<16x64xf32>
    %40 = sdy.sharding_constraint %39 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %41 = stablehlo.multiply %6, %40 : tensor<16x64xf32>
    %42 = sdy.sharding_constraint %41 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %43 = stablehlo.dot_general %42, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %44 = sdy.sharding_constraint %43 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %45 = stablehlo.reshape %arg2 : (tensor<8xf32>) -> tensor<1x8xf32>
    %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %48 = stablehlo.add %44, %47 : tensor<16x8xf32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %50 = sdy.sharding_constraint %arg15 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %51 = stablehlo.subtract %49, %50 : tensor<16x8xf32>
    %52 = sdy.sharding_constraint %51 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %53 = stablehlo.multiply %52, %52 : tensor<16x8xf32>
    %54 = sdy.sharding_constraint %53 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %56 = sdy.sharding_constraint %55 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %57 = stablehlo.multiply %56, %52 : tensor<16x8xf32>
    %58 = sdy.sharding_constraint %57 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %59 = stablehlo.reduce(%54 init: %cst_6) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
    %60 = sdy.sharding_constraint %59 <@mesh, []> : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %61 = sdy.sharding_constraint %cst_7 <@mesh, []> : tensor<f32>
    %62 = stablehlo.divide %60, %61 : tensor<f32>
    %63 = sdy.sharding_constraint %62 <@mesh, []> : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %64 = sdy.sharding_constraint %cst_8 <@mesh, []> : tensor<f32>
    %cst_9 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %65 = sdy.sharding_constraint %cst_9 <@mesh, []> : tensor<f32>
    %66 = stablehlo.divide %64, %65 : tensor<f32>
    %67 = sdy.sharding_constraint %66 <@mesh, []> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %70 = stablehlo.multiply %69, %58 : tensor<16x8xf32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}, {}]> : tensor<16x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %73 = sdy.sharding_constraint %72 <@mesh, [{}]> : tensor<8xf32>
    %74 = stablehlo.reshape %73 : (tensor<8xf32>) -> tensor<1x8xf32>
    %75 = sdy.sharding_constraint %74 <@mesh, [{}, {}]> : tensor<1x8xf32>
    %76 = stablehlo.reshape %75 : (tensor<1x8xf32>) -> tensor<8xf32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}]> : tensor<8xf32>
    %78 = stablehlo.dot_general %71, %42, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{}, {}]> : tensor<8x64xf32>
    %80 = stablehlo.transpose %79, dims = [1, 0] : (tensor<8x64xf32>) -> tensor<64x8xf32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %82 = stablehlo.dot_general %71, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<64x8xf32>) -> tensor<16x64xf32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %84 = stablehlo.multiply %6, %83 : tensor<16x64xf32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %86 = stablehlo.multiply %83, %40 : tensor<16x64xf32>
    %87 = sdy.sharding_constraint %86 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %90 = stablehlo.multiply %89, %85 : tensor<16x64xf32>
    %91 = sdy.sharding_constraint %90 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %92 = stablehlo.multiply %91, %32 : tensor<16x64xf32>
    %93 = sdy.sharding_constraint %92 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %94 = stablehlo.multiply %93, %27 : tensor<16x64xf32>
    %95 = sdy.sharding_constraint %94 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %96 = stablehlo.add %93, %95 : tensor<16x64xf32>
    %97 = sdy.sharding_constraint %96 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_12 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %99 = sdy.sharding_constraint %98 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %100 = stablehlo.multiply %99, %97 : tensor<16x64xf32>
    %101 = sdy.sharding_constraint %100 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %102 = stablehlo.add %87, %101 : tensor<16x64xf32>
    %103 = sdy.sharding_constraint %102 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_13 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %105 = sdy.sharding_constraint %104 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %106 = stablehlo.multiply %105, %101 : tensor<16x64xf32>
    %107 = sdy.sharding_constraint %106 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %108 = stablehlo.multiply %107, %15 : tensor<16x64xf32>
    %109 = sdy.sharding_constraint %108 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %110 = stablehlo.add %103, %109 : tensor<16x64xf32>
    %111 = sdy.sharding_constraint %110 <@mesh, [{}, {}]> : tensor<16x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %112 = stablehlo.reduce(%111 init: %cst_14) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %113 = sdy.sharding_constraint %112 <@mesh, [{}]> : tensor<64xf32>
    %114 = stablehlo.reshape %113 : (tensor<64xf32>) -> tensor<1x64xf32>
    %115 = sdy.sharding_constraint %114 <@mesh, [{}, {}]> : tensor<1x64xf32>
    %116 = stablehlo.reshape %115 : (tensor<1x64xf32>) -> tensor<64xf32>
    %117 = sdy.sharding_constraint %116 <@mesh, [{}]> : tensor<64xf32>
    %118 = stablehlo.dot_general %111, %arg14, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
    %119 = sdy.sharding_constraint %118 <@mesh, [{}, {}]> : tensor<64x32xf32>
    %120 = stablehlo.transpose %119, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %122 = sdy.sharding_constraint %117 <@mesh, [{}]> : tensor<64xf32>
    %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %123 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %124 = sdy.sharding_constraint %123 <@mesh, [{}]> : tensor<64xf32>
    %125 = stablehlo.multiply %124, %122 : tensor<64xf32>
    %126 = sdy.sharding_constraint %125 <@mesh, [{}]> : tensor<64xf32>
    %cst_16 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %127 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %128 = sdy.sharding_constraint %127 <@mesh, [{}]> : tensor<64xf32>
    %129 = sdy.sharding_constraint %arg5 <@mesh, [{}]> : tensor<64xf32>
    %130 = stablehlo.multiply %128, %129 : tensor<64xf32>
    %131 = sdy.sharding_constraint %130 <@mesh, [{}]> : tensor<64xf32>
    %132 = stablehlo.add %126, %131 : tensor<64xf32>
    %133 = sdy.sharding_constraint %132 <@mesh, [{}]> : tensor<64xf32>
    %134 = sdy.sharding_constraint %121 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %136 = sdy.sharding_constraint %135 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %137 = stablehlo.multiply %136, %134 : tensor<32x64xf32>
    %138 = sdy.sharding_constraint %137 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_18 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %140 = sdy.sharding_constraint %139 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %141 = sdy.sharding_constraint %arg6 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %142 = stablehlo.multiply %140, %141 : tensor<32x64xf32>
    %143 = sdy.sharding_constraint %142 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %144 = stablehlo.add %138, %143 : tensor<32x64xf32>
    %145 = sdy.sharding_constraint %144 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %146 = sdy.sharding_constraint %77 <@mesh, [{}]> : tensor<8xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %148 = sdy.sharding_constraint %147 <@mesh, [{}]> : tensor<8xf32>
    %149 = stablehlo.multiply %148, %146 : tensor<8xf32>
    %150 = sdy.sharding_constraint %149 <@mesh, [{}]> : tensor<8xf32>
    %cst_20 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %152 = sdy.sharding_constraint %151 <@mesh, [{}]> : tensor<8xf32>
    %153 = sdy.sharding_constraint %arg7 <@mesh, [{}]> : tensor<8xf32>
    %154 = stablehlo.multiply %152, %153 : tensor<8xf32>
    %155 = sdy.sharding_constraint %154 <@mesh, [{}]> : tensor<8xf32>
    %156 = stablehlo.add %150, %155 : tensor<8xf32>
    %157 = sdy.sharding_constraint %156 <@mesh, [{}]> : tensor<8xf32>
    %158 = sdy.sharding_constraint %81 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %160 = sdy.sharding_constraint %159 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %161 = stablehlo.multiply %160, %158 : tensor<64x8xf32>
    %162 = sdy.sharding_constraint %161 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_22 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %163 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %164 = sdy.sharding_constraint %163 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %165 = sdy.sharding_constraint %arg8 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %166 = stablehlo.multiply %164, %165 : tensor<64x8xf32>
    %167 = sdy.sharding_constraint %166 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %168 = stablehlo.add %162, %167 : tensor<64x8xf32>
    %169 = sdy.sharding_constraint %168 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %170 = stablehlo.multiply %117, %117 : tensor<64xf32>
    %171 = sdy.sharding_constraint %170 <@mesh, [{}]> : tensor<64xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %173 = sdy.sharding_constraint %172 <@mesh, [{}]> : tensor<64xf32>
    %174 = stablehlo.multiply %173, %171 : tensor<64xf32>
    %175 = sdy.sharding_constraint %174 <@mesh, [{}]> : tensor<64xf32>
    %cst_24 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %176 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %177 = sdy.sharding_constraint %176 <@mesh, [{}]> : tensor<64xf32>
    %178 = sdy.sharding_constraint %arg9 <@mesh, [{}]> : tensor<64xf32>
    %179 = stablehlo.multiply %177, %178 : tensor<64xf32>
    %180 = sdy.sharding_constraint %179 <@mesh, [{}]> : tensor<64xf32>
    %181 = stablehlo.add %175, %180 : tensor<64xf32>
    %182 = sdy.sharding_constraint %181 <@mesh, [{}]> : tensor<64xf32>
    %183 = stablehlo.multiply %121, %121 : tensor<32x64xf32>
    %184 = sdy.sharding_constraint %183 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_25 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %186 = sdy.sharding_constraint %185 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %187 = stablehlo.multiply %186, %184 : tensor<32x64xf32>
    %188 = sdy.sharding_constraint %187 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_26 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %189 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %190 = sdy.sharding_constraint %189 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %191 = sdy.sharding_constraint %arg10 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %192 = stablehlo.multiply %190, %191 : tensor<32x64xf32>
    %193 = sdy.sharding_constraint %192 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %194 = stablehlo.add %188, %193 : tensor<32x64xf32>
    %195 = sdy.sharding_constraint %194 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %196 = stablehlo.multiply %77, %77 : tensor<8xf32>
    %197 = sdy.sharding_constraint %196 <@mesh, [{}]> : tensor<8xf32>
    %cst_27 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %198 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %199 = sdy.sharding_constraint %198 <@mesh, [{}]> : tensor<8xf32>
    %200 = stablehlo.multiply %199, %197 : tensor<8xf32>
    %201 = sdy.sharding_constraint %200 <@mesh, [{}]> : tensor<8xf32>
    %cst_28 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %202 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %203 = sdy.sharding_constraint %202 <@mesh, [{}]> : tensor<8xf32>
    %204 = sdy.sharding_constraint %arg11 <@mesh, [{}]> : tensor<8xf32>
    %205 = stablehlo.multiply %203, %204 : tensor<8xf32>
    %206 = sdy.sharding_constraint %205 <@mesh, [{}]> : tensor<8xf32>
    %207 = stablehlo.add %201, %206 : tensor<8xf32>
    %208 = sdy.sharding_constraint %207 <@mesh, [{}]> : tensor<8xf32>
    %209 = stablehlo.multiply %81, %81 : tensor<64x8xf32>
    %210 = sdy.sharding_constraint %209 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_29 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %211 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %212 = sdy.sharding_constraint %211 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %213 = stablehlo.multiply %212, %210 : tensor<64x8xf32>
    %214 = sdy.sharding_constraint %213 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_30 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %215 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %216 = sdy.sharding_constraint %215 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %217 = sdy.sharding_constraint %arg12 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %218 = stablehlo.multiply %216, %217 : tensor<64x8xf32>
    %219 = sdy.sharding_constraint %218 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %220 = stablehlo.add %214, %219 : tensor<64x8xf32>
    %221 = sdy.sharding_constraint %220 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %c = stablehlo.constant dense<2147483647> : tensor<i32>
    %222 = sdy.sharding_constraint %arg4 <@mesh, []> : tensor<i32>
    %223 = sdy.sharding_constraint %c <@mesh, []> : tensor<i32>
    %224 = stablehlo.compare LT, %222, %223, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_31 = stablehlo.constant dense<1> : tensor<i32>
    %225 = sdy.sharding_constraint %arg4 <@mesh, []> : tensor<i32>
    %226 = sdy.sharding_constraint %c_31 <@mesh, []> : tensor<i32>
    %227 = stablehlo.add %225, %226 : tensor<i32>
    %228 = sdy.sharding_constraint %227 <@mesh, []> : tensor<i32>
    %c_32 = stablehlo.constant dense<2147483647> : tensor<i32>
    %229 = call @_where(%224, %228, %c_32) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %cst_33 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %230 = stablehlo.convert %229 : (tensor<i32>) -> tensor<f32>
    %231 = sdy.sharding_constraint %cst_33 <@mesh, []> : tensor<f32>
    %232 = stablehlo.power %231, %230 : tensor<f32>
    %233 = sdy.sharding_constraint %232 <@mesh, []> : tensor<f32>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %234 = sdy.sharding_constraint %cst_34 <@mesh, []> : tensor<f32>
    %235 = stablehlo.subtract %234, %233 : tensor<f32>
    %236 = sdy.sharding_constraint %235 <@mesh, []> : tensor<f32>
    %237 = stablehlo.broadcast_in_dim %236, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %238 = sdy.sharding_constraint %237 <@mesh, [{}]> : tensor<64xf32>
    %239 = stablehlo.divide %133, %238 : tensor<64xf32>
    %240 = sdy.sharding_constraint %239 <@mesh, [{}]> : tensor<64xf32>
    %241 = stablehlo.broadcast_in_dim %236, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %242 = sdy.sharding_constraint %241 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %243 = stablehlo.divide %145, %242 : tensor<32x64xf32>
    %244 = sdy.sharding_constraint %243 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %245 = stablehlo.broadcast_in_dim %236, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %246 = sdy.sharding_constraint %245 <@mesh, [{}]> : tensor<8xf32>
    %247 = stablehlo.divide %157, %246 : tensor<8xf32>
    %248 = sdy.sharding_constraint %247 <@mesh, [{}]> : tensor<8xf32>
    %249 = stablehlo.broadcast_in_dim %236, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %250 = sdy.sharding_constraint %249 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %251 = stablehlo.divide %169, %250 : tensor<64x8xf32>
    %252 = sdy.sharding_constraint %251 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_35 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %253 = stablehlo.convert %229 : (tensor<i32>) -> tensor<f32>
    %254 = sdy.sharding_constraint %cst_35 <@mesh, []> : tensor<f32>
    %255 = stablehlo.power %254, %253 : tensor<f32>
    %256 = sdy.sharding_constraint %255 <@mesh, []> : tensor<f32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %257 = sdy.sharding_constraint %cst_36 <@mesh, []> : tensor<f32>
    %258 = stablehlo.subtract %257, %256 : tensor<f32>
    %259 = sdy.sharding_constraint %258 <@mesh, []> : tensor<f32>
    %260 = stablehlo.broadcast_in_dim %259, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %261 = sdy.sharding_constraint %260 <@mesh, [{}]> : tensor<64xf32>
    %262 = stablehlo.divide %182, %261 : tensor<64xf32>
    %263 = sdy.sharding_constraint %262 <@mesh, [{}]> : tensor<64xf32>
    %264 = stablehlo.broadcast_in_dim %259, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %265 = sdy.sharding_constraint %264 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %266 = stablehlo.divide %195, %265 : tensor<32x64xf32>
    %267 = sdy.sharding_constraint %266 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %268 = stablehlo.broadcast_in_dim %259, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %269 = sdy.sharding_constraint %268 <@mesh, [{}]> : tensor<8xf32>
    %270 = stablehlo.divide %208, %269 : tensor<8xf32>
    %271 = sdy.sharding_constraint %270 <@mesh, [{}]> : tensor<8xf32>
    %272 = stablehlo.broadcast_in_dim %259, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %273 = sdy.sharding_constraint %272 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %274 = stablehlo.divide %221, %273 : tensor<64x8xf32>
    %275 = sdy.sharding_constraint %274 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %276 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %277 = sdy.sharding_constraint %276 <@mesh, [{}]> : tensor<64xf32>
    %278 = stablehlo.add %263, %277 : tensor<64xf32>
    %279 = sdy.sharding_constraint %278 <@mesh, [{}]> : tensor<64xf32>
    %280 = stablehlo.sqrt %279 : tensor<64xf32>
    %281 = sdy.sharding_constraint %280 <@mesh, [{}]> : tensor<64xf32>
    %cst_38 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %282 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %283 = sdy.sharding_constraint %282 <@mesh, [{}]> : tensor<64xf32>
    %284 = stablehlo.add %281, %283 : tensor<64xf32>
    %285 = sdy.sharding_constraint %284 <@mesh, [{}]> : tensor<64xf32>
    %286 = stablehlo.divide %240, %285 : tensor<64xf32>
    %287 = sdy.sharding_constraint %286 <@mesh, [{}]> : tensor<64xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %288 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %289 = sdy.sharding_constraint %288 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %290 = stablehlo.add %267, %289 : tensor<32x64xf32>
    %291 = sdy.sharding_constraint %290 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %292 = stablehlo.sqrt %291 : tensor<32x64xf32>
    %293 = sdy.sharding_constraint %292 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_40 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %294 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %295 = sdy.sharding_constraint %294 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %296 = stablehlo.add %293, %295 : tensor<32x64xf32>
    %297 = sdy.sharding_constraint %296 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %298 = stablehlo.divide %244, %297 : tensor<32x64xf32>
    %299 = sdy.sharding_constraint %298 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %300 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %301 = sdy.sharding_constraint %300 <@mesh, [{}]> : tensor<8xf32>
    %302 = stablehlo.add %271, %301 : tensor<8xf32>
    %303 = sdy.sharding_constraint %302 <@mesh, [{}]> : tensor<8xf32>
    %304 = stablehlo.sqrt %303 : tensor<8xf32>
    %305 = sdy.sharding_constraint %304 <@mesh, [{}]> : tensor<8xf32>
    %cst_42 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %306 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %307 = sdy.sharding_constraint %306 <@mesh, [{}]> : tensor<8xf32>
    %308 = stablehlo.add %305, %307 : tensor<8xf32>
    %309 = sdy.sharding_constraint %308 <@mesh, [{}]> : tensor<8xf32>
    %310 = stablehlo.divide %248, %309 : tensor<8xf32>
    %311 = sdy.sharding_constraint %310 <@mesh, [{}]> : tensor<8xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %312 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %313 = sdy.sharding_constraint %312 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %314 = stablehlo.add %275, %313 : tensor<64x8xf32>
    %315 = sdy.sharding_constraint %314 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %316 = stablehlo.sqrt %315 : tensor<64x8xf32>
    %317 = sdy.sharding_constraint %316 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_44 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %318 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %319 = sdy.sharding_constraint %318 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %320 = stablehlo.add %317, %319 : tensor<64x8xf32>
    %321 = sdy.sharding_constraint %320 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %322 = stablehlo.divide %252, %321 : tensor<64x8xf32>
    %323 = sdy.sharding_constraint %322 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_45 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %324 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %325 = sdy.sharding_constraint %324 <@mesh, [{}]> : tensor<64xf32>
    %326 = sdy.sharding_constraint %arg0 <@mesh, [{}]> : tensor<64xf32>
    %327 = stablehlo.multiply %325, %326 : tensor<64xf32>
    %328 = sdy.sharding_constraint %327 <@mesh, [{}]> : tensor<64xf32>
    %329 = stablehlo.add %287, %328 : tensor<64xf32>
    %330 = sdy.sharding_constraint %329 <@mesh, [{}]> : tensor<64xf32>
    %cst_46 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %331 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %332 = sdy.sharding_constraint %331 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %333 = sdy.sharding_constraint %arg1 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %334 = stablehlo.multiply %332, %333 : tensor<32x64xf32>
    %335 = sdy.sharding_constraint %334 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %336 = stablehlo.add %299, %335 : tensor<32x64xf32>
    %337 = sdy.sharding_constraint %336 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_47 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %338 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %339 = sdy.sharding_constraint %338 <@mesh, [{}]> : tensor<8xf32>
    %340 = sdy.sharding_constraint %arg2 <@mesh, [{}]> : tensor<8xf32>
    %341 = stablehlo.multiply %339, %340 : tensor<8xf32>
    %342 = sdy.sharding_constraint %341 <@mesh, [{}]> : tensor<8xf32>
    %343 = stablehlo.add %311, %342 : tensor<8xf32>
    %344 = sdy.sharding_constraint %343 <@mesh, [{}]> : tensor<8xf32>
    %cst_48 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %345 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %346 = sdy.sharding_constraint %345 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %347 = sdy.sharding_constraint %arg3 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %348 = stablehlo.multiply %346, %347 : tensor<64x8xf32>
    %349 = sdy.sharding_constraint %348 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %350 = stablehlo.add %323, %349 : tensor<64x8xf32>
    %351 = sdy.sharding_constraint %350 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %cst_49 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %352 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %353 = sdy.sharding_constraint %352 <@mesh, [{}]> : tensor<64xf32>
    %354 = stablehlo.multiply %353, %330 : tensor<64xf32>
    %355 = sdy.sharding_constraint %354 <@mesh, [{}]> : tensor<64xf32>
    %cst_50 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %356 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %357 = sdy.sharding_constraint %356 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %358 = stablehlo.multiply %357, %337 : tensor<32x64xf32>
    %359 = sdy.sharding_constraint %358 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %cst_51 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %360 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %361 = sdy.sharding_constraint %360 <@mesh, [{}]> : tensor<8xf32>
    %362 = stablehlo.multiply %361, %344 : tensor<8xf32>
    %363 = sdy.sharding_constraint %362 <@mesh, [{}]> : tensor<8xf32>
    %cst_52 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %364 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %365 = sdy.sharding_constraint %364 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %366 = stablehlo.multiply %365, %351 : tensor<64x8xf32>
    %367 = sdy.sharding_constraint %366 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %368 = sdy.sharding_constraint %arg0 <@mesh, [{}]> : tensor<64xf32>
    %369 = stablehlo.add %368, %355 : tensor<64xf32>
    %370 = sdy.sharding_constraint %369 <@mesh, [{}]> : tensor<64xf32>
    %371 = sdy.sharding_constraint %arg1 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %372 = stablehlo.add %371, %359 : tensor<32x64xf32>
    %373 = sdy.sharding_constraint %372 <@mesh, [{}, {}]> : tensor<32x64xf32>
    %374 = sdy.sharding_constraint %arg2 <@mesh, [{}]> : tensor<8xf32>
    %375 = stablehlo.add %374, %363 : tensor<8xf32>
    %376 = sdy.sharding_constraint %375 <@mesh, [{}]> : tensor<8xf32>
    %377 = sdy.sharding_constraint %arg3 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %378 = stablehlo.add %377, %367 : tensor<64x8xf32>
    %379 = sdy.sharding_constraint %378 <@mesh, [{}, {}]> : tensor<64x8xf32>
    %c_53 = stablehlo.constant dense<1> : tensor<ui32>
    %380 = sdy.sharding_constraint %arg13 <@mesh, []> : tensor<ui32>
    %381 = sdy.sharding_constraint %c_53 <@mesh, []> : tensor<ui32>
    %382 = stablehlo.add %380, %381 : tensor<ui32>
    %383 = sdy.sharding_constraint %382 <@mesh, []> : tensor<ui32>
    return %370, %373, %376, %379, %229, %133, %145, %157, %169, %182, %195, %208, %221, %383, %63 : tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<i32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<ui32>, tensor<f32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    %1 = sdy.sharding_constraint %0 <@mesh, []> : tensor<i32>
    return %1 : tensor<i32>
  }
}
