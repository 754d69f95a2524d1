# The Windows D3D12 compute kernels (LPNORM_BUILD_D3D12; targets in LpnormTargets.cmake):
# every reduction pattern and pooling rank for float32 and float16, with the Windows D3D12
# Halide runtime, archived by Halide's archive writer into d3d12/lpnorm_kernels_d3d12.lib,
# beside their C headers and registry rows (lpnorm_d3d12_kernel_table.inc, the rows of
# runtime/registry.h). A Windows program links the library and calls the kernels through their
# headers; the Linux library here never links them.
#
# tests/integration checks the HLSL of every kernel (check_d3d12_hlsl.py).
function(lpnorm_add_d3d12_library)
    lpnorm_add_reduce_kernels(reduce_objects reduce_table d3d12)
    lpnorm_add_pool_kernels(pool_objects pool_table d3d12)
    lpnorm_add_halide_runtime(runtime_object "${LPNORM_RUNTIME_TARGET_d3d12}"
                              lpnorm_d3d12_runtime .obj)
    set(objects ${reduce_objects} ${pool_objects} ${runtime_object})

    set(out_dir "${PROJECT_BINARY_DIR}/d3d12")
    set(library "${out_dir}/lpnorm_kernels_d3d12.lib")
    file(CONFIGURE OUTPUT "${out_dir}/lpnorm_d3d12_kernel_table.inc"
         CONTENT "// Generated from cmake/LpnormD3D12.cmake: one row per D3D12 kernel.\n${reduce_table}${pool_table}")
    # The kernels' C headers go beside the library too, for a Windows build that links it from
    # this build tree (tests/integration's d3d12_run).
    set(kernel_headers ${reduce_objects} ${pool_objects})
    list(TRANSFORM kernel_headers REPLACE "\\.obj$" ".h")
    add_custom_command(
        OUTPUT "${library}"
        COMMAND lpnorm_archive "${LPNORM_TARGET_d3d12}" "${library}" ${objects}
        COMMAND "${CMAKE_COMMAND}" -E copy_if_different ${kernel_headers} "${out_dir}"
        DEPENDS lpnorm_archive ${objects}
        COMMENT "Archiving the D3D12 kernels for Windows"
        VERBATIM)
    add_custom_target(lpnorm_d3d12 ALL DEPENDS "${library}")

    set(headers ${kernel_headers})
    # The kernels' headers include HalideRuntime.h; HalideRuntimeD3D12Compute.h wraps an
    # ID3D12Resource in a halide_buffer_t without a copy.
    get_target_property(halide_include_dirs Halide::Runtime INTERFACE_INCLUDE_DIRECTORIES)
    string(REGEX REPLACE "\\$<BUILD_INTERFACE:([^>]*)>" "\\1" halide_include_dirs
           "${halide_include_dirs}")
    foreach (header IN ITEMS HalideRuntime.h HalideRuntimeD3D12Compute.h)
        find_file(found NAMES ${header} PATHS ${halide_include_dirs} NO_DEFAULT_PATH NO_CACHE
                  REQUIRED)
        list(APPEND headers "${found}")
        unset(found)
    endforeach ()
    install(FILES "${library}" DESTINATION "${CMAKE_INSTALL_LIBDIR}/windows-d3d12")
    install(FILES ${headers} "${out_dir}/lpnorm_d3d12_kernel_table.inc"
            DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/lpnorm/d3d12")
endfunction()
