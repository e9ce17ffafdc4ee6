// RUN: tilemem opt %s -hacc-append-device-spec=target=Ascend950PR_950z -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=A5
// RUN: tilemem opt %s -hacc-append-device-spec="target=Ascend910B4-1 hivmc-version=0.2.0" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=B4
// RUN: tilemem opt %s -pass-pipeline='builtin.module(hacc-append-device-spec{target=Ascend310B4 custom-aic-number=1 custom-aiv-number=0})' -split-input-file | FileCheck %s --check-prefix=M300
// RUN: not tilemem opt %s -hacc-append-device-spec=target=Ascend999 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tilemem opt %s -hacc-append-device-spec=chip=Ascend910B1 2>&1 | FileCheck %s --check-prefix=BADOPT

// Register-based chips carry the SIMT data-cache bounds and the
// architecture, and no hivmc attributes.
// A5: module attributes {dlti.target_system_spec = #dlti.target_system_spec<"NPU" : #hacc.target_device_spec<#dlti.dl_entry<"AI_CORE_COUNT", 4 : i32>, #dlti.dl_entry<"CUBE_CORE_COUNT", 4 : i32>, #dlti.dl_entry<"VECTOR_CORE_COUNT", 8 : i32>, #dlti.dl_entry<"UB_SIZE", 2031616 : i32>, #dlti.dl_entry<"L1_SIZE", 4194304 : i32>, #dlti.dl_entry<"L0A_SIZE", 524288 : i32>, #dlti.dl_entry<"L0B_SIZE", 524288 : i32>, #dlti.dl_entry<"L0C_SIZE", 2097152 : i32>, #dlti.dl_entry<"UB_ALIGN_SIZE", 256 : i32>, #dlti.dl_entry<"L1_ALIGN_SIZE", 256 : i32>, #dlti.dl_entry<"L0C_ALIGN_SIZE", 4096 : i32>, #dlti.dl_entry<"MINIMAL_D_CACHE_SIZE", 262144 : i32>, #dlti.dl_entry<"MAXIMUM_D_CACHE_SIZE", 983040 : i32>, #dlti.dl_entry<"ARCH", "dav-c310">>>, hacc.target = #hacc.target<"Ascend950PR_950z">} {
// Memory-based chips get the hivmc version (0.0.0 unless the option
// parses) and no register-based entries. The option spelling with a dash
// names the chip Ascend910B4_1.
// B4: module attributes {dlti.target_system_spec = #dlti.target_system_spec<"NPU" : #hacc.target_device_spec<#dlti.dl_entry<"AI_CORE_COUNT", 20 : i32>, #dlti.dl_entry<"CUBE_CORE_COUNT", 20 : i32>, #dlti.dl_entry<"VECTOR_CORE_COUNT", 40 : i32>, #dlti.dl_entry<"UB_SIZE", 1572864 : i32>, #dlti.dl_entry<"L1_SIZE", 4194304 : i32>, #dlti.dl_entry<"L0A_SIZE", 524288 : i32>, #dlti.dl_entry<"L0B_SIZE", 524288 : i32>, #dlti.dl_entry<"L0C_SIZE", 1048576 : i32>, #dlti.dl_entry<"UB_ALIGN_SIZE", 256 : i32>, #dlti.dl_entry<"L1_ALIGN_SIZE", 256 : i32>, #dlti.dl_entry<"L0C_ALIGN_SIZE", 4096 : i32>>>, hacc.hivmc_compatible_print = false, hacc.hivmc_version = #hacc.hivmc_version<"0.2.0">, hacc.target = #hacc.target<"Ascend910B4_1">} {
// The 310B is register-based; a custom core count above the chip's is
// ignored (aic 1 <= 1 applies, aiv 0 applies).
// M300: #dlti.dl_entry<"AI_CORE_COUNT", 1 : i32>, #dlti.dl_entry<"CUBE_CORE_COUNT", 1 : i32>, #dlti.dl_entry<"VECTOR_CORE_COUNT", 0 : i32>
// M300-SAME: #dlti.dl_entry<"MINIMAL_D_CACHE_SIZE", 0 : i32>, #dlti.dl_entry<"MAXIMUM_D_CACHE_SIZE", 0 : i32>, #dlti.dl_entry<"ARCH", "dav-m300">>>, hacc.target = #hacc.target<"Ascend310B4">} {
// BAD: tilemem opt: pass '-hacc-append-device-spec': unknown target 'Ascend999'; known targets: Ascend910B1,
// BADOPT: tilemem opt: pass '-hacc-append-device-spec' has no option 'chip'
module {
  func.func @f() {
    return
  }
}

// -----

// Another chip in the IR is replaced by the option's, with a warning; the
// specs of other devices in the target system spec stay.
// A5: #dlti.target_system_spec<"CPU" : #dlti.target_device_spec<#dlti.dl_entry<"x", 1 : i32>>, "NPU" : #hacc.target_device_spec<#dlti.dl_entry<"AI_CORE_COUNT", 4 : i32>
// A5-SAME: hacc.target = #hacc.target<"Ascend950PR_950z">
// expected-warning@+2 {{Overwriting the target by the pass option...}}
// expected-warning@+1 {{Overwriting the device spec...}}
module attributes {hacc.target = #hacc.target<"Ascend910B1">, dlti.target_system_spec = #dlti.target_system_spec<"CPU" : #dlti.target_device_spec<#dlti.dl_entry<"x", 1 : i32>>, "NPU" : #hacc.target_device_spec<#dlti.dl_entry<"UB_SIZE", 8 : i32>>>} {
}
