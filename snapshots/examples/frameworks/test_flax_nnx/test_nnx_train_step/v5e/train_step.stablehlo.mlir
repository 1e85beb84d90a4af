module @jit_train_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<32x64xf32> {tf.aliasing_output = 1 : i32}, %arg2: tensor<8xf32> {tf.aliasing_output = 2 : i32}, %arg3: tensor<64x8xf32> {tf.aliasing_output = 3 : i32}, %arg4: tensor<i32> {tf.aliasing_output = 4 : i32}, %arg5: tensor<64xf32> {tf.aliasing_output = 5 : i32}, %arg6: tensor<32x64xf32> {tf.aliasing_output = 6 : i32}, %arg7: tensor<8xf32> {tf.aliasing_output = 7 : i32}, %arg8: tensor<64x8xf32> {tf.aliasing_output = 8 : i32}, %arg9: tensor<64xf32> {tf.aliasing_output = 9 : i32}, %arg10: tensor<32x64xf32> {tf.aliasing_output = 10 : i32}, %arg11: tensor<8xf32> {tf.aliasing_output = 11 : i32}, %arg12: tensor<64x8xf32> {tf.aliasing_output = 12 : i32}, %arg13: tensor<ui32> {tf.aliasing_output = 13 : i32}, %arg14: tensor<16x32xf32>, %arg15: tensor<16x8xf32>) -> (tensor<64xf32> {jax.result_info = "result[0][0].states[0][0]"}, tensor<32x64xf32> {jax.result_info = "result[0][0].states[0][1]"}, tensor<8xf32> {jax.result_info = "result[0][0].states[0][2]"}, tensor<64x8xf32> {jax.result_info = "result[0][0].states[0][3]"}, tensor<i32> {jax.result_info = "result[0][1].states[0][0]"}, tensor<64xf32> {jax.result_info = "result[0][1].states[0][1]"}, tensor<32x64xf32> {jax.result_info = "result[0][1].states[0][2]"}, tensor<8xf32> {jax.result_info = "result[0][1].states[0][3]"}, tensor<64x8xf32> {jax.result_info = "result[0][1].states[0][4]"}, tensor<64xf32> {jax.result_info = "result[0][1].states[0][5]"}, tensor<32x64xf32> {jax.result_info = "result[0][1].states[0][6]"}, tensor<8xf32> {jax.result_info = "result[0][1].states[0][7]"}, tensor<64x8xf32> {jax.result_info = "result[0][1].states[0][8]"}, tensor<ui32> {jax.result_info = "result[0][1].states[0][9]"}, tensor<f32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg14, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<64xf32>) -> tensor<1x64xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<16x64xf32>
    %3 = stablehlo.add %0, %2 : tensor<16x64xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<16x64xf32>
    %5 = stablehlo.multiply %4, %3 : tensor<16x64xf32>
    %6 = stablehlo.multiply %3, %3 : tensor<16x64xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<16x64xf32>
    %cst_0 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %10 = stablehlo.multiply %9, %5 : tensor<16x64xf32>
    %11 = stablehlo.add %3, %10 : tensor<16x64xf32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<16x64xf32>
    %14 = stablehlo.tanh %13 : tensor<16x64xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %16 = stablehlo.subtract %15, %14 : tensor<16x64xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %18 = stablehlo.add %17, %14 : tensor<16x64xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %20 = stablehlo.multiply %19, %18 : tensor<16x64xf32>
    %21 = stablehlo.multiply %3, %20 : tensor<16x64xf32>
    %22 = stablehlo.dot_general %21, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<64x8xf32>) -> tensor<16x8xf32>
    %23 = stablehlo.reshape %arg2 : (tensor<8xf32>) -> tensor<1x8xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<16x8xf32>
    %25 = stablehlo.add %22, %24 : tensor<16x8xf32>
    %26 = stablehlo.subtract %25, %arg15 : tensor<16x8xf32>
    %27 = stablehlo.multiply %26, %26 : tensor<16x8xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %29 = stablehlo.multiply %28, %26 : tensor<16x8xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%27 init: %cst_6) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_7 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %31 = stablehlo.divide %30, %cst_7 : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_9 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %32 = stablehlo.divide %cst_8, %cst_9 : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %34 = stablehlo.multiply %33, %29 : tensor<16x8xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.reduce(%34 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<16x8xf32>, tensor<f32>) -> tensor<8xf32>
    %36 = stablehlo.reshape %35 : (tensor<8xf32>) -> tensor<1x8xf32>
    %37 = stablehlo.reshape %36 : (tensor<1x8xf32>) -> tensor<8xf32>
    %38 = stablehlo.dot_general %34, %21, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<16x64xf32>) -> tensor<8x64xf32>
    %39 = stablehlo.transpose %38, dims = [1, 0] : (tensor<8x64xf32>) -> tensor<64x8xf32>
    %40 = stablehlo.dot_general %34, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<64x8xf32>) -> tensor<16x64xf32>
    %41 = stablehlo.multiply %3, %40 : tensor<16x64xf32>
    %42 = stablehlo.multiply %40, %20 : tensor<16x64xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %44 = stablehlo.multiply %43, %41 : tensor<16x64xf32>
    %45 = stablehlo.multiply %44, %16 : tensor<16x64xf32>
    %46 = stablehlo.multiply %45, %14 : tensor<16x64xf32>
    %47 = stablehlo.add %45, %46 : tensor<16x64xf32>
    %cst_12 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %49 = stablehlo.multiply %48, %47 : tensor<16x64xf32>
    %50 = stablehlo.add %42, %49 : tensor<16x64xf32>
    %cst_13 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %52 = stablehlo.multiply %51, %49 : tensor<16x64xf32>
    %53 = stablehlo.multiply %52, %8 : tensor<16x64xf32>
    %54 = stablehlo.add %50, %53 : tensor<16x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %55 = stablehlo.reduce(%54 init: %cst_14) applies stablehlo.add across dimensions = [0] : (tensor<16x64xf32>, tensor<f32>) -> tensor<64xf32>
    %56 = stablehlo.reshape %55 : (tensor<64xf32>) -> tensor<1x64xf32>
    %57 = stablehlo.reshape %56 : (tensor<1x64xf32>) -> tensor<64xf32>
    %58 = stablehlo.dot_general %54, %arg14, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x64xf32>, tensor<16x32xf32>) -> tensor<64x32xf32>
    %59 = stablehlo.transpose %58, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
    %cst_15 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %61 = stablehlo.multiply %60, %57 : tensor<64xf32>
    %cst_16 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %63 = stablehlo.multiply %62, %arg5 : tensor<64xf32>
    %64 = stablehlo.add %61, %63 : tensor<64xf32>
    %cst_17 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %66 = stablehlo.multiply %65, %59 : tensor<32x64xf32>
    %cst_18 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %68 = stablehlo.multiply %67, %arg6 : tensor<32x64xf32>
    %69 = stablehlo.add %66, %68 : tensor<32x64xf32>
    %cst_19 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %71 = stablehlo.multiply %70, %37 : tensor<8xf32>
    %cst_20 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %73 = stablehlo.multiply %72, %arg7 : tensor<8xf32>
    %74 = stablehlo.add %71, %73 : tensor<8xf32>
    %cst_21 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %76 = stablehlo.multiply %75, %39 : tensor<64x8xf32>
    %cst_22 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %78 = stablehlo.multiply %77, %arg8 : tensor<64x8xf32>
    %79 = stablehlo.add %76, %78 : tensor<64x8xf32>
    %80 = stablehlo.multiply %57, %57 : tensor<64xf32>
    %cst_23 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %82 = stablehlo.multiply %81, %80 : tensor<64xf32>
    %cst_24 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %84 = stablehlo.multiply %83, %arg9 : tensor<64xf32>
    %85 = stablehlo.add %82, %84 : tensor<64xf32>
    %86 = stablehlo.multiply %59, %59 : tensor<32x64xf32>
    %cst_25 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %88 = stablehlo.multiply %87, %86 : tensor<32x64xf32>
    %cst_26 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %90 = stablehlo.multiply %89, %arg10 : tensor<32x64xf32>
    %91 = stablehlo.add %88, %90 : tensor<32x64xf32>
    %92 = stablehlo.multiply %37, %37 : tensor<8xf32>
    %cst_27 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %93 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %94 = stablehlo.multiply %93, %92 : tensor<8xf32>
    %cst_28 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %96 = stablehlo.multiply %95, %arg11 : tensor<8xf32>
    %97 = stablehlo.add %94, %96 : tensor<8xf32>
    %98 = stablehlo.multiply %39, %39 : tensor<64x8xf32>
    %cst_29 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %100 = stablehlo.multiply %99, %98 : tensor<64x8xf32>
    %cst_30 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %102 = stablehlo.multiply %101, %arg12 : tensor<64x8xf32>
    %103 = stablehlo.add %100, %102 : tensor<64x8xf32>
    %c = stablehlo.constant dense<2147483647> : tensor<i32>
    %104 = stablehlo.compare LT, %arg4, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_31 = stablehlo.constant dense<1> : tensor<i32>
    %105 = stablehlo.add %arg4, %c_31 : tensor<i32>
    %c_32 = stablehlo.constant dense<2147483647> : tensor<i32>
    %106 = call @_where(%104, %105, %c_32) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %cst_33 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %107 = stablehlo.convert %106 : (tensor<i32>) -> tensor<f32>
    %108 = stablehlo.power %cst_33, %107 : tensor<f32>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %109 = stablehlo.subtract %cst_34, %108 : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %109, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %111 = stablehlo.divide %64, %110 : tensor<64xf32>
    %112 = stablehlo.broadcast_in_dim %109, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %113 = stablehlo.divide %69, %112 : tensor<32x64xf32>
    %114 = stablehlo.broadcast_in_dim %109, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %115 = stablehlo.divide %74, %114 : tensor<8xf32>
    %116 = stablehlo.broadcast_in_dim %109, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %117 = stablehlo.divide %79, %116 : tensor<64x8xf32>
    %cst_35 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %118 = stablehlo.convert %106 : (tensor<i32>) -> tensor<f32>
    %119 = stablehlo.power %cst_35, %118 : tensor<f32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %120 = stablehlo.subtract %cst_36, %119 : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %120, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %122 = stablehlo.divide %85, %121 : tensor<64xf32>
    %123 = stablehlo.broadcast_in_dim %120, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %124 = stablehlo.divide %91, %123 : tensor<32x64xf32>
    %125 = stablehlo.broadcast_in_dim %120, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %126 = stablehlo.divide %97, %125 : tensor<8xf32>
    %127 = stablehlo.broadcast_in_dim %120, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %128 = stablehlo.divide %103, %127 : tensor<64x8xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %130 = stablehlo.add %122, %129 : tensor<64xf32>
    %131 = stablehlo.sqrt %130 : tensor<64xf32>
    %cst_38 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %133 = stablehlo.add %131, %132 : tensor<64xf32>
    %134 = stablehlo.divide %111, %133 : tensor<64xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %135 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %136 = stablehlo.add %124, %135 : tensor<32x64xf32>
    %137 = stablehlo.sqrt %136 : tensor<32x64xf32>
    %cst_40 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %138 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %139 = stablehlo.add %137, %138 : tensor<32x64xf32>
    %140 = stablehlo.divide %113, %139 : tensor<32x64xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %142 = stablehlo.add %126, %141 : tensor<8xf32>
    %143 = stablehlo.sqrt %142 : tensor<8xf32>
    %cst_42 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %145 = stablehlo.add %143, %144 : tensor<8xf32>
    %146 = stablehlo.divide %115, %145 : tensor<8xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %148 = stablehlo.add %128, %147 : tensor<64x8xf32>
    %149 = stablehlo.sqrt %148 : tensor<64x8xf32>
    %cst_44 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %150 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %151 = stablehlo.add %149, %150 : tensor<64x8xf32>
    %152 = stablehlo.divide %117, %151 : tensor<64x8xf32>
    %cst_45 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %153 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %154 = stablehlo.multiply %153, %arg0 : tensor<64xf32>
    %155 = stablehlo.add %134, %154 : tensor<64xf32>
    %cst_46 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %156 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %157 = stablehlo.multiply %156, %arg1 : tensor<32x64xf32>
    %158 = stablehlo.add %140, %157 : tensor<32x64xf32>
    %cst_47 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %160 = stablehlo.multiply %159, %arg2 : tensor<8xf32>
    %161 = stablehlo.add %146, %160 : tensor<8xf32>
    %cst_48 = stablehlo.constant dense<9.99999974E-5> : tensor<f32>
    %162 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %163 = stablehlo.multiply %162, %arg3 : tensor<64x8xf32>
    %164 = stablehlo.add %152, %163 : tensor<64x8xf32>
    %cst_49 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %166 = stablehlo.multiply %165, %155 : tensor<64xf32>
    %cst_50 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %167 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
    %168 = stablehlo.multiply %167, %158 : tensor<32x64xf32>
    %cst_51 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %169 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %170 = stablehlo.multiply %169, %161 : tensor<8xf32>
    %cst_52 = stablehlo.constant dense<-1.000000e-03> : tensor<f32>
    %171 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<64x8xf32>
    %172 = stablehlo.multiply %171, %164 : tensor<64x8xf32>
    %173 = stablehlo.add %arg0, %166 : tensor<64xf32>
    %174 = stablehlo.add %arg1, %168 : tensor<32x64xf32>
    %175 = stablehlo.add %arg2, %170 : tensor<8xf32>
    %176 = stablehlo.add %arg3, %172 : tensor<64x8xf32>
    %c_53 = stablehlo.constant dense<1> : tensor<ui32>
    %177 = stablehlo.add %arg13, %c_53 : tensor<ui32>
    return %173, %174, %175, %176, %106, %64, %69, %74, %79, %85, %91, %97, %103, %177, %31 : tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<i32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<8xf32>, tensor<64x8xf32>, tensor<ui32>, tensor<f32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
