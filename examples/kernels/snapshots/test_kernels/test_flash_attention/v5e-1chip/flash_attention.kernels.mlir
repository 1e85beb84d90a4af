// kernel _flash_attention_kernel#1858af146068: Mosaic TPU
module {
  func.func @_flash_attention_kernel(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32, %arg4: memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, %arg5: memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, %arg6: memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, %arg7: memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, %arg8: memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, %arg9: memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, %arg10: memref<1x1x128x128xf32, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: 1, 4, 8, 8>, scalar_prefetch = 0 : i64, scratch_operands = 3 : i64, tpu.core_type = #tpu.core_type<tc>, window_params = [{transform_indices = @transform_0, window_bounds = array<i64: 1, 1, 128, 128>}, {transform_indices = @transform_1, window_bounds = array<i64: 1, 1, 128, 128>}, {transform_indices = @transform_2, window_bounds = array<i64: 1, 1, 128, 128>}, {transform_indices = @transform_3, window_bounds = array<i64: 1, 1, 128, 128>}]} {
    %c0_i32 = arith.constant 0 : i32
    %0 = arith.cmpi eq, %arg3, %c0_i32 : i32
    %1 = arith.extui %0 : i1 to i32
    %c0_i32_0 = arith.constant 0 : i32
    %2 = arith.cmpi ne, %1, %c0_i32_0 : i32
    scf.if %2 {
      %cst = arith.constant 0xFF800000 : f32
      %13 = vector.broadcast %cst : f32 to vector<128x128xf32>
      %c0 = arith.constant 0 : index
      %c0_5 = arith.constant 0 : index
      %c0_6 = arith.constant 0 : index
      %c0_7 = arith.constant 0 : index
      %14 = vector.load %arg8[%c0, %c0_5, %c0_6, %c0_7] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %15 = vector.shape_cast %14 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %16 = vector.shape_cast %13 : vector<128x128xf32> to vector<1x1x128x128xf32>
      tpu.vector_store %arg8[%c0, %c0_5, %c0_6, %c0_7], %16 {strides = array<i32>} : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>,
      %cst_8 = arith.constant 0.000000e+00 : f32
      %17 = vector.broadcast %cst_8 : f32 to vector<128x128xf32>
      %c0_9 = arith.constant 0 : index
      %c0_10 = arith.constant 0 : index
      %c0_11 = arith.constant 0 : index
      %c0_12 = arith.constant 0 : index
      %18 = vector.load %arg9[%c0_9, %c0_10, %c0_11, %c0_12] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %19 = vector.shape_cast %18 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %20 = vector.shape_cast %17 : vector<128x128xf32> to vector<1x1x128x128xf32>
      tpu.vector_store %arg9[%c0_9, %c0_10, %c0_11, %c0_12], %20 {strides = array<i32>} : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>,
      %cst_13 = arith.constant 0.000000e+00 : f32
      %21 = vector.broadcast %cst_13 : f32 to vector<128x128xf32>
      %c0_14 = arith.constant 0 : index
      %c0_15 = arith.constant 0 : index
      %c0_16 = arith.constant 0 : index
      %c0_17 = arith.constant 0 : index
      %22 = vector.load %arg10[%c0_14, %c0_15, %c0_16, %c0_17] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %23 = vector.shape_cast %22 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %24 = vector.shape_cast %21 : vector<128x128xf32> to vector<1x1x128x128xf32>
      tpu.vector_store %arg10[%c0_14, %c0_15, %c0_16, %c0_17], %24 {strides = array<i32>} : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>,
    } else {
    }
    %c1_i32 = arith.constant 1 : i32
    %3 = arith.addi %arg2, %c1_i32 : i32
    %c128_i32 = arith.constant 128 : i32
    %4 = arith.muli %3, %c128_i32 : i32
    %c1_i32_1 = arith.constant 1 : i32
    %5 = arith.subi %4, %c1_i32_1 : i32
    %c128_i32_2 = arith.constant 128 : i32
    %6 = arith.muli %arg3, %c128_i32_2 : i32
    %7 = arith.cmpi sgt, %5, %6 : i32
    %8 = arith.extui %7 : i1 to i32
    %c0_i32_3 = arith.constant 0 : i32
    %9 = arith.cmpi ne, %8, %c0_i32_3 : i32
    scf.if %9 {
      %c0_i32_5 = arith.constant 0 : i32
      %c128_i32_6 = arith.constant 128 : i32
      %13 = arith.muli %c0_i32_5, %c128_i32_6 : i32
      %c0_i32_7 = arith.constant 0 : i32
      %14 = arith.addi %c0_i32_7, %13 : i32
      %c0 = arith.constant 0 : index
      %c0_8 = arith.constant 0 : index
      %c0_9 = arith.constant 0 : index
      %c0_10 = arith.constant 0 : index
      %15 = vector.load %arg8[%c0, %c0_8, %c0_9, %c0_10] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %16 = vector.shape_cast %15 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %c0_11 = arith.constant 0 : index
      %c0_12 = arith.constant 0 : index
      %c0_13 = arith.constant 0 : index
      %c0_14 = arith.constant 0 : index
      %17 = vector.load %arg9[%c0_11, %c0_12, %c0_13, %c0_14] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %18 = vector.shape_cast %17 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %c0_15 = arith.constant 0 : index
      %c0_16 = arith.constant 0 : index
      %c0_17 = arith.constant 0 : index
      %c0_18 = arith.constant 0 : index
      %19 = vector.load %arg4[%c0_15, %c0_16, %c0_17, %c0_18] : memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x1x128x128xbf16>
      %20 = vector.shape_cast %19 : vector<1x1x128x128xbf16> to vector<128x128xbf16>
      %c0_19 = arith.constant 0 : index
      %c0_20 = arith.constant 0 : index
      %21 = arith.index_cast %14 : i32 to index
      %c0_21 = arith.constant 0 : index
      %22 = vector.load %arg5[%c0_19, %c0_20, %21, %c0_21] : memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x1x128x128xbf16>
      %23 = vector.shape_cast %22 : vector<1x1x128x128xbf16> to vector<128x128xbf16>
      %cst = arith.constant dense<0.000000e+00> : vector<128x128xf32>
      %24 = tpu.matmul %20, %23, %cst {dimension_numbers = #tpu.dot_dimension_numbers<[1], [1], [0], [0], [0, 0, 1, 0], [], []>, transpose_lhs_hint = false} : vector<128x128xbf16>, vector<128x128xbf16>, vector<128x128xf32> -> vector<128x128xf32>
      %25 = tpu.iota {dimensions = array<i32: 0>} : vector<128x128xi32>
      %c128_i32_22 = arith.constant 128 : i32
      %26 = arith.muli %arg2, %c128_i32_22 : i32
      %27 = vector.broadcast %26 : i32 to vector<128x128xi32>
      %28 = arith.addi %25, %27 : vector<128x128xi32>
      %29 = tpu.iota {dimensions = array<i32: 1>} : vector<128x128xi32>
      %c128_i32_23 = arith.constant 128 : i32
      %30 = arith.muli %arg3, %c128_i32_23 : i32
      %31 = arith.addi %30, %14 : i32
      %32 = vector.broadcast %31 : i32 to vector<128x128xi32>
      %33 = arith.addi %29, %32 : vector<128x128xi32>
      %34 = arith.cmpi sle, %33, %28 : vector<128x128xi32>
      %cst_24 = arith.constant 0.000000e+00 : f32
      %cst_25 = arith.constant -2.38197633E+38 : f32
      %35 = vector.broadcast %cst_24 : f32 to vector<128x128xf32>
      %36 = vector.broadcast %cst_25 : f32 to vector<128x128xf32>
      %37 = arith.select %34, %35, %36 : vector<128x128xi1>, vector<128x128xf32>
      %38 = arith.addf %24, %37 : vector<128x128xf32>
      %cst_26 = arith.constant dense<0xFF800000> : vector<128xf32>
      %39 = vector.multi_reduction <maximumf>, %38, %cst_26 [1] : vector<128x128xf32> to vector<128xf32>
      %40 = vector.shape_cast %39 : vector<128xf32> to vector<128x1xf32>
      %41 = vector.broadcast %40 : vector<128x1xf32> to vector<128x128xf32>
      %42 = arith.maximumf %16, %41 : vector<128x128xf32>
      %43 = arith.subf %38, %42 : vector<128x128xf32>
      %44 = math.exp %43 : vector<128x128xf32>
      %45 = arith.subf %16, %42 : vector<128x128xf32>
      %46 = math.exp %45 : vector<128x128xf32>
      %47 = arith.mulf %46, %18 : vector<128x128xf32>
      %cst_27 = arith.constant dense<0.000000e+00> : vector<128xf32>
      %48 = vector.multi_reduction <add>, %44, %cst_27 [1] : vector<128x128xf32> to vector<128xf32>
      %49 = vector.shape_cast %48 : vector<128xf32> to vector<128x1xf32>
      %50 = vector.broadcast %49 : vector<128x1xf32> to vector<128x128xf32>
      %51 = arith.addf %50, %47 : vector<128x128xf32>
      %c0_28 = arith.constant 0 : index
      %c0_29 = arith.constant 0 : index
      %c0_30 = arith.constant 0 : index
      %c0_31 = arith.constant 0 : index
      %52 = vector.load %arg9[%c0_28, %c0_29, %c0_30, %c0_31] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %53 = vector.shape_cast %52 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %54 = vector.shape_cast %51 : vector<128x128xf32> to vector<1x1x128x128xf32>
      tpu.vector_store %arg9[%c0_28, %c0_29, %c0_30, %c0_31], %54 {strides = array<i32>} : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>,
      %c0_32 = arith.constant 0 : index
      %c0_33 = arith.constant 0 : index
      %c0_34 = arith.constant 0 : index
      %c0_35 = arith.constant 0 : index
      %55 = vector.load %arg8[%c0_32, %c0_33, %c0_34, %c0_35] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %56 = vector.shape_cast %55 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %57 = vector.shape_cast %42 : vector<128x128xf32> to vector<1x1x128x128xf32>
      tpu.vector_store %arg8[%c0_32, %c0_33, %c0_34, %c0_35], %57 {strides = array<i32>} : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>,
      %cst_36 = arith.constant 0.000000e+00 : f32
      %58 = vector.broadcast %cst_36 : f32 to vector<128x128xf32>
      %59 = arith.cmpf oeq, %51, %58 : vector<128x128xf32>
      %cst_37 = arith.constant 1.000000e+00 : f32
      %60 = vector.broadcast %cst_37 : f32 to vector<128x128xf32>
      %61 = arith.divf %60, %51 : vector<128x128xf32>
      %cst_38 = arith.constant 1.000000e+00 : f32
      %62 = vector.broadcast %cst_38 : f32 to vector<128x128xf32>
      %63 = arith.select %59, %62, %61 : vector<128x128xi1>, vector<128x128xf32>
      %c0_39 = arith.constant 0 : index
      %c0_40 = arith.constant 0 : index
      %c0_41 = arith.constant 0 : index
      %c0_42 = arith.constant 0 : index
      %64 = vector.load %arg10[%c0_39, %c0_40, %c0_41, %c0_42] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %65 = vector.shape_cast %64 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %66 = arith.mulf %47, %63 : vector<128x128xf32>
      %67 = arith.mulf %65, %66 : vector<128x128xf32>
      %c0_43 = arith.constant 0 : index
      %c0_44 = arith.constant 0 : index
      %c0_45 = arith.constant 0 : index
      %c0_46 = arith.constant 0 : index
      %68 = vector.load %arg10[%c0_43, %c0_44, %c0_45, %c0_46] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %69 = vector.shape_cast %68 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %70 = vector.shape_cast %67 : vector<128x128xf32> to vector<1x1x128x128xf32>
      tpu.vector_store %arg10[%c0_43, %c0_44, %c0_45, %c0_46], %70 {strides = array<i32>} : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>,
      %c0_47 = arith.constant 0 : index
      %c0_48 = arith.constant 0 : index
      %71 = arith.index_cast %14 : i32 to index
      %c0_49 = arith.constant 0 : index
      %72 = vector.load %arg6[%c0_47, %c0_48, %71, %c0_49] : memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x1x128x128xbf16>
      %73 = vector.shape_cast %72 : vector<1x1x128x128xbf16> to vector<128x128xbf16>
      %74 = arith.truncf %44 : vector<128x128xf32> to vector<128x128xbf16>
      %cst_50 = arith.constant dense<0.000000e+00> : vector<128x128xf32>
      %75 = tpu.matmul %74, %73, %cst_50 {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>, transpose_lhs_hint = false} : vector<128x128xbf16>, vector<128x128xbf16>, vector<128x128xf32> -> vector<128x128xf32>
      %c0_51 = arith.constant 0 : index
      %c0_52 = arith.constant 0 : index
      %c0_53 = arith.constant 0 : index
      %c0_54 = arith.constant 0 : index
      %76 = vector.load %arg10[%c0_51, %c0_52, %c0_53, %c0_54] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %77 = vector.shape_cast %76 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %78 = arith.mulf %75, %63 : vector<128x128xf32>
      %79 = arith.addf %77, %78 : vector<128x128xf32>
      %c0_55 = arith.constant 0 : index
      %c0_56 = arith.constant 0 : index
      %c0_57 = arith.constant 0 : index
      %c0_58 = arith.constant 0 : index
      %80 = vector.load %arg10[%c0_55, %c0_56, %c0_57, %c0_58] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %81 = vector.shape_cast %80 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %82 = vector.shape_cast %79 : vector<128x128xf32> to vector<1x1x128x128xf32>
      tpu.vector_store %arg10[%c0_55, %c0_56, %c0_57, %c0_58], %82 {strides = array<i32>} : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>,
      %c1_i32_59 = arith.constant 1 : i32
    } else {
    }
    %c7_i32 = arith.constant 7 : i32
    %10 = arith.cmpi eq, %arg3, %c7_i32 : i32
    %11 = arith.extui %10 : i1 to i32
    %c0_i32_4 = arith.constant 0 : i32
    %12 = arith.cmpi ne, %11, %c0_i32_4 : i32
    scf.if %12 {
      %c0 = arith.constant 0 : index
      %c0_5 = arith.constant 0 : index
      %c0_6 = arith.constant 0 : index
      %c0_7 = arith.constant 0 : index
      %13 = vector.load %arg10[%c0, %c0_5, %c0_6, %c0_7] : memref<1x1x128x128xf32, #tpu.memory_space<vmem>>, vector<1x1x128x128xf32>
      %14 = vector.shape_cast %13 : vector<1x1x128x128xf32> to vector<128x128xf32>
      %15 = arith.truncf %14 : vector<128x128xf32> to vector<128x128xbf16>
      %c0_8 = arith.constant 0 : index
      %c0_9 = arith.constant 0 : index
      %c0_10 = arith.constant 0 : index
      %c0_11 = arith.constant 0 : index
      %16 = vector.load %arg7[%c0_8, %c0_9, %c0_10, %c0_11] : memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x1x128x128xbf16>
      %17 = vector.shape_cast %16 : vector<1x1x128x128xbf16> to vector<128x128xbf16>
      %18 = vector.shape_cast %15 : vector<128x128xbf16> to vector<1x1x128x128xbf16>
      tpu.vector_store %arg7[%c0_8, %c0_9, %c0_10, %c0_11], %18 {strides = array<i32>} : memref<1x1x128x128xbf16, #tpu.memory_space<vmem>>, vector<1x1x128x128xbf16>,
    } else {
    }
    return
  }
  func.func @transform_0(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32) -> (i32, i32, i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    return %arg0, %arg1, %arg2, %c0_i32 : i32, i32, i32, i32
  }
  func.func @transform_1(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32) -> (i32, i32, i32, i32) {
    %c1_i32 = arith.constant 1 : i32
    %0 = arith.addi %arg2, %c1_i32 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = arith.muli %0, %c128_i32 : i32
    %c1_i32_0 = arith.constant 1 : i32
    %2 = arith.subi %1, %c1_i32_0 : i32
    %c128_i32_1 = arith.constant 128 : i32
    %3 = arith.muli %arg3, %c128_i32_1 : i32
    %4 = arith.cmpi sgt, %2, %3 : i32
    %c0_i32 = arith.constant 0 : i32
    %5 = arith.select %4, %arg3, %c0_i32 : i32
    %c0_i32_2 = arith.constant 0 : i32
    %c0_i32_3 = arith.constant 0 : i32
    return %arg0, %arg1, %5, %c0_i32_2 : i32, i32, i32, i32
  }
  func.func @transform_2(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32) -> (i32, i32, i32, i32) {
    %c1_i32 = arith.constant 1 : i32
    %0 = arith.addi %arg2, %c1_i32 : i32
    %c128_i32 = arith.constant 128 : i32
    %1 = arith.muli %0, %c128_i32 : i32
    %c1_i32_0 = arith.constant 1 : i32
    %2 = arith.subi %1, %c1_i32_0 : i32
    %c128_i32_1 = arith.constant 128 : i32
    %3 = arith.muli %arg3, %c128_i32_1 : i32
    %4 = arith.cmpi sgt, %2, %3 : i32
    %c0_i32 = arith.constant 0 : i32
    %5 = arith.select %4, %arg3, %c0_i32 : i32
    %c0_i32_2 = arith.constant 0 : i32
    %c0_i32_3 = arith.constant 0 : i32
    return %arg0, %arg1, %5, %c0_i32_2 : i32, i32, i32, i32
  }
  func.func @transform_3(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: i32) -> (i32, i32, i32, i32) {
    %c0_i32 = arith.constant 0 : i32
    %c0_i32_0 = arith.constant 0 : i32
    return %arg0, %arg1, %arg2, %c0_i32 : i32, i32, i32, i32
  }
}
