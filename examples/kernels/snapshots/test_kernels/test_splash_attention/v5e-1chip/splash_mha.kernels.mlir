// kernel splash_mha_fwd_no_residuals#72266e2383f9: Mosaic TPU
module {
  func.func @splash_mha_fwd_no_residuals(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg5: memref<1x128x128xbf16, #tpu.memory_space<vmem>>, %arg6: memref<1x128x128xbf16, #tpu.memory_space<vmem>>, %arg7: memref<1x128x128xbf16, #tpu.memory_space<vmem>>, %arg8: memref<128x128xi32, #tpu.memory_space<vmem>>, %arg9: memref<128x128xf32, #tpu.memory_space<vmem>>, %arg10: memref<128x128xf32, #tpu.memory_space<vmem>>, %arg11: memref<128x128xf32, #tpu.memory_space<vmem>>, %arg12: memref<1x128x128xbf16, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>, #tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 4, 8, 8>, scalar_prefetch = 2 : i64, scratch_operands = 0 : i64, tpu.core_type = #tpu.core_type<tc>, window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 1, 128, 128>}, {transform_indices = @transform_1, window_bounds = array<i64: 1, 128, 128>}, {transform_indices = @transform_2, window_bounds = array<i64: 1, 128, 128>}, {transform_indices = @transform_3, window_bounds = array<i64: 128, 128>}, {pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_4, window_bounds = array<i64: 128, 128>}, {pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_5, window_bounds = array<i64: 128, 128>}, {pipeline_mode = #tpu.pipeline_mode<synchronous>, transform_indices = @transform_6, window_bounds = array<i64: 128, 128>}, {transform_indices = @transform_7, window_bounds = array<i64: 1, 128, 128>}]} {
    %c0_i32 = arith.constant 0 : i32
    %0 = arith.cmpi eq, %arg2, %c0_i32 : i32
    %1 = arith.extui %0 : i1 to i32
    %c0_i32_0 = arith.constant 0 : i32
    %2 = arith.cmpi ne, %1, %c0_i32_0 : i32
    scf.if %2 {
      %cst = arith.constant 0.000000e+00 : f32
      %17 = vector.broadcast %cst : f32 to vector<128x128xf32>
      %c0_5 = arith.constant 0 : index
      %c0_6 = arith.constant 0 : index
      %18 = vector.load %arg11[%c0_5, %c0_6] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg11[%c0_5, %c0_6], %17 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %cst_7 = arith.constant -2.38197633E+38 : f32
      %19 = vector.broadcast %cst_7 : f32 to vector<128x128xf32>
      %c0_8 = arith.constant 0 : index
      %c0_9 = arith.constant 0 : index
      %20 = vector.load %arg9[%c0_8, %c0_9] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg9[%c0_8, %c0_9], %19 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %cst_10 = arith.constant 0.000000e+00 : f32
      %21 = vector.broadcast %cst_10 : f32 to vector<128x128xf32>
      %c0_11 = arith.constant 0 : index
      %c0_12 = arith.constant 0 : index
      %22 = vector.load %arg10[%c0_11, %c0_12] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg10[%c0_11, %c0_12], %21 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
    } else {
    }
    %c0 = arith.constant 0 : index
    %3 = arith.index_cast %arg1 : i32 to index
    %4 = arith.index_cast %arg2 : i32 to index
    %5 = memref.load %arg4[%c0, %3, %4] : memref<1x8x8xi8, #tpu.memory_space<smem>>
    %6 = arith.extsi %5 : i8 to i32
    %c0_i32_1 = arith.constant 0 : i32
    %7 = arith.cmpi sgt, %6, %c0_i32_1 : i32
    %c0_2 = arith.constant 0 : index
    %8 = arith.index_cast %arg1 : i32 to index
    %9 = arith.index_cast %arg2 : i32 to index
    %10 = memref.load %arg3[%c0_2, %8, %9] : memref<1x8x8xi8, #tpu.memory_space<smem>>
    %11 = arith.extsi %10 : i8 to i32
    %12 = arith.extui %7 : i1 to i32
    %c0_i32_3 = arith.constant 0 : i32
    %13 = arith.cmpi ne, %12, %c0_i32_3 : i32
    scf.if %13 {
      %c0_i32_5 = arith.constant 0 : i32
      %c128_i32 = arith.constant 128 : i32
      %17 = arith.muli %c0_i32_5, %c128_i32 : i32
      %c0_6 = arith.constant 0 : index
      %c0_7 = arith.constant 0 : index
      %18 = vector.load %arg9[%c0_6, %c0_7] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %c0_8 = arith.constant 0 : index
      %c0_9 = arith.constant 0 : index
      %19 = vector.load %arg10[%c0_8, %c0_9] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %c0_10 = arith.constant 0 : index
      %c0_11 = arith.constant 0 : index
      %c0_12 = arith.constant 0 : index
      %20 = vector.load %arg5[%c0_10, %c0_11, %c0_12] : memref<1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x128x128xbf16>
      %21 = vector.shape_cast %20 : vector<1x128x128xbf16> to vector<128x128xbf16>
      %c0_13 = arith.constant 0 : index
      %22 = arith.index_cast %17 : i32 to index
      %c0_14 = arith.constant 0 : index
      %23 = vector.load %arg6[%c0_13, %22, %c0_14] : memref<1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x128x128xbf16>
      %24 = vector.shape_cast %23 : vector<1x128x128xbf16> to vector<128x128xbf16>
      %cst = arith.constant dense<0.000000e+00> : vector<128x128xf32>
      %25 = tpu.matmul %21, %24, %cst {dimension_numbers = #tpu.dot_dimension_numbers<[1], [1], [0], [0], [0, 0, 1, 0], [], []>, transpose_lhs_hint = false} : vector<128x128xbf16>, vector<128x128xbf16>, vector<128x128xf32> -> vector<128x128xf32>
      %c128_i32_15 = arith.constant 128 : i32
      %26 = arith.muli %11, %c128_i32_15 : i32
      %c128_i32_16 = arith.constant 128 : i32
      %27 = arith.muli %c0_i32_5, %c128_i32_16 : i32
      %28 = arith.addi %26, %27 : i32
      %29 = tpu.iota {dimensions = array<i32: 1>} : vector<128x128xi32>
      %30 = vector.broadcast %28 : i32 to vector<128x128xi32>
      %31 = arith.addi %30, %29 : vector<128x128xi32>
      %c0_17 = arith.constant 0 : index
      %c0_18 = arith.constant 0 : index
      %32 = vector.load %arg8[%c0_17, %c0_18] : memref<128x128xi32, #tpu.memory_space<vmem>>, vector<128x128xi32>
      %33 = arith.cmpi sge, %32, %31 : vector<128x128xi32>
      %cst_19 = arith.constant -2.38197633E+38 : f32
      %34 = vector.broadcast %cst_19 : f32 to vector<128x128xf32>
      %35 = arith.select %33, %25, %34 : vector<128x128xi1>, vector<128x128xf32>
      %cst_20 = arith.constant dense<0xFF800000> : vector<128xf32>
      %36 = vector.multi_reduction <maximumf>, %35, %cst_20 [1] : vector<128x128xf32> to vector<128xf32>
      %37 = vector.shape_cast %36 : vector<128xf32> to vector<128x1xf32>
      %38 = vector.broadcast %37 : vector<128x1xf32> to vector<128x128xf32>
      %39 = arith.maximumf %18, %38 : vector<128x128xf32>
      %40 = arith.subf %35, %39 : vector<128x128xf32>
      %41 = math.exp %40 : vector<128x128xf32>
      %cst_21 = arith.constant dense<0.000000e+00> : vector<128xf32>
      %42 = vector.multi_reduction <add>, %41, %cst_21 [1] : vector<128x128xf32> to vector<128xf32>
      %43 = vector.shape_cast %42 : vector<128xf32> to vector<128x1xf32>
      %44 = vector.broadcast %43 : vector<128x1xf32> to vector<128x128xf32>
      %45 = arith.subf %18, %39 : vector<128x128xf32>
      %46 = math.exp %45 : vector<128x128xf32>
      %47 = arith.mulf %46, %19 : vector<128x128xf32>
      %48 = arith.addf %44, %47 : vector<128x128xf32>
      %c0_22 = arith.constant 0 : index
      %c0_23 = arith.constant 0 : index
      %49 = vector.load %arg9[%c0_22, %c0_23] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg9[%c0_22, %c0_23], %39 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %c0_24 = arith.constant 0 : index
      %c0_25 = arith.constant 0 : index
      %50 = vector.load %arg10[%c0_24, %c0_25] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg10[%c0_24, %c0_25], %48 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %c0_26 = arith.constant 0 : index
      %51 = arith.index_cast %17 : i32 to index
      %c0_27 = arith.constant 0 : index
      %52 = vector.load %arg7[%c0_26, %51, %c0_27] : memref<1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x128x128xbf16>
      %53 = vector.shape_cast %52 : vector<1x128x128xbf16> to vector<128x128xbf16>
      %54 = arith.extf %53 : vector<128x128xbf16> to vector<128x128xf32>
      %cst_28 = arith.constant dense<0.000000e+00> : vector<128x128xf32>
      %55 = tpu.matmul %41, %54, %cst_28 {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>, transpose_lhs_hint = false} : vector<128x128xf32>, vector<128x128xf32>, vector<128x128xf32> -> vector<128x128xf32>
      %c0_29 = arith.constant 0 : index
      %c0_30 = arith.constant 0 : index
      %56 = vector.load %arg11[%c0_29, %c0_30] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %57 = arith.mulf %46, %56 : vector<128x128xf32>
      %58 = arith.addf %57, %55 : vector<128x128xf32>
      %c0_31 = arith.constant 0 : index
      %c0_32 = arith.constant 0 : index
      %59 = vector.load %arg11[%c0_31, %c0_32] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg11[%c0_31, %c0_32], %58 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %c1_i32 = arith.constant 1 : i32
    } else {
    }
    %c7_i32 = arith.constant 7 : i32
    %14 = arith.cmpi eq, %arg2, %c7_i32 : i32
    %15 = arith.extui %14 : i1 to i32
    %c0_i32_4 = arith.constant 0 : i32
    %16 = arith.cmpi ne, %15, %c0_i32_4 : i32
    scf.if %16 {
      %c0_5 = arith.constant 0 : index
      %c0_6 = arith.constant 0 : index
      %17 = vector.load %arg10[%c0_5, %c0_6] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %cst = arith.constant 1.000000e+00 : f32
      %18 = vector.broadcast %cst : f32 to vector<128x128xf32>
      %19 = arith.divf %18, %17 : vector<128x128xf32>
      %c0_7 = arith.constant 0 : index
      %c0_8 = arith.constant 0 : index
      %20 = vector.load %arg11[%c0_7, %c0_8] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      %21 = arith.mulf %20, %19 : vector<128x128xf32>
      %22 = arith.truncf %21 : vector<128x128xf32> to vector<128x128xbf16>
      %c0_9 = arith.constant 0 : index
      %c0_10 = arith.constant 0 : index
      %c0_11 = arith.constant 0 : index
      %23 = vector.load %arg12[%c0_9, %c0_10, %c0_11] : memref<1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x128x128xbf16>
      %24 = vector.shape_cast %23 : vector<1x128x128xbf16> to vector<128x128xbf16>
      %25 = vector.shape_cast %22 : vector<128x128xbf16> to vector<1x128x128xbf16>
      tpu.vector_store %arg12[%c0_9, %c0_10, %c0_11], %25 {strides = array<i32>} : memref<1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x128x128xbf16>,
      %cst_12 = arith.constant 0.000000e+00 : f32
      %26 = vector.broadcast %cst_12 : f32 to vector<128x128xf32>
      %c0_13 = arith.constant 0 : index
      %c0_14 = arith.constant 0 : index
      %27 = vector.load %arg9[%c0_13, %c0_14] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg9[%c0_13, %c0_14], %26 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %cst_15 = arith.constant 0.000000e+00 : f32
      %28 = vector.broadcast %cst_15 : f32 to vector<128x128xf32>
      %c0_16 = arith.constant 0 : index
      %c0_17 = arith.constant 0 : index
      %29 = vector.load %arg10[%c0_16, %c0_17] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg10[%c0_16, %c0_17], %28 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
      %cst_18 = arith.constant 0.000000e+00 : f32
      %30 = vector.broadcast %cst_18 : f32 to vector<128x128xf32>
      %c0_19 = arith.constant 0 : index
      %c0_20 = arith.constant 0 : index
      %31 = vector.load %arg11[%c0_19, %c0_20] : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>
      tpu.vector_store %arg11[%c0_19, %c0_20], %30 {strides = array<i32>} : memref<128x128xf32, #tpu.memory_space<vmem>>, vector<128x128xf32>,
    } else {
    }
    return
  }
  func.func @transform_0(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    return %arg0, %arg1, %c0_i32 : i32, i32, i32
  }
  func.func @transform_1(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32, i32) {
    %c0 = arith.constant 0 : index
    %0 = arith.index_cast %arg1 : i32 to index
    %1 = arith.index_cast %arg2 : i32 to index
    %2 = memref.load %arg4[%c0, %0, %1] : memref<1x8x8xi8, #tpu.memory_space<smem>>
    %3 = arith.extsi %2 : i8 to i32
    %c0_i32 = arith.constant 0 : i32
    %4 = arith.cmpi sgt, %3, %c0_i32 : i32
    %c0_0 = arith.constant 0 : index
    %5 = arith.index_cast %arg1 : i32 to index
    %6 = arith.index_cast %arg2 : i32 to index
    %7 = memref.load %arg3[%c0_0, %5, %6] : memref<1x8x8xi8, #tpu.memory_space<smem>>
    %8 = arith.extsi %7 : i8 to i32
    %c0_i32_1 = arith.constant 0 : i32
    %c0_i32_2 = arith.constant 0 : i32
    return %arg0, %8, %c0_i32_1 : i32, i32, i32
  }
  func.func @transform_2(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32, i32) {
    %c0 = arith.constant 0 : index
    %0 = arith.index_cast %arg1 : i32 to index
    %1 = arith.index_cast %arg2 : i32 to index
    %2 = memref.load %arg4[%c0, %0, %1] : memref<1x8x8xi8, #tpu.memory_space<smem>>
    %3 = arith.extsi %2 : i8 to i32
    %c0_i32 = arith.constant 0 : i32
    %4 = arith.cmpi sgt, %3, %c0_i32 : i32
    %c0_0 = arith.constant 0 : index
    %5 = arith.index_cast %arg1 : i32 to index
    %6 = arith.index_cast %arg2 : i32 to index
    %7 = memref.load %arg3[%c0_0, %5, %6] : memref<1x8x8xi8, #tpu.memory_space<smem>>
    %8 = arith.extsi %7 : i8 to i32
    %c0_i32_1 = arith.constant 0 : i32
    %c0_i32_2 = arith.constant 0 : i32
    return %arg0, %8, %c0_i32_1 : i32, i32, i32
  }
  func.func @transform_3(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    return %arg1, %c0_i32 : i32, i32
  }
  func.func @transform_4(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    %c0_i32_1 = arith.constant 0 : i32
    return %c0_i32, %c0_i32_0 : i32, i32
  }
  func.func @transform_5(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    %c0_i32_1 = arith.constant 0 : i32
    return %c0_i32, %c0_i32_0 : i32, i32
  }
  func.func @transform_6(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    %c0_i32_1 = arith.constant 0 : i32
    return %c0_i32, %c0_i32_0 : i32, i32
  }
  func.func @transform_7(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1x8x8xi8, #tpu.memory_space<smem>>, %arg4: memref<1x8x8xi8, #tpu.memory_space<smem>>) -> (i32, i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    return %arg0, %arg1, %c0_i32 : i32, i32, i32
  }
}
