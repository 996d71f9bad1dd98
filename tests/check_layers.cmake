# Checks that includes between the project's folders point one way: sim -> scheduler -> ir, and inside ir
# and sim the direction below. A file in folder F may include project headers only from the folders listed
# for F (system and library headers are not checked). A folder with no row is an error, so a new folder
# must be placed in the table before it builds.
#   cmake -DSOURCE_DIR=<repo> -P tests/check_layers.cmake
# Prints every include that breaks the table and fails; prints a one-line summary otherwise.

set(ir_all ir ir/tvm ir/onnx ir/import ir/hardware ir/cost ir/fusion ir/partition)
set(below_sim ${ir_all} scheduler)

# folder -> folders its files may include from (besides itself)
set(allow_ir "")
set(allow_ir/tvm ir)
set(allow_ir/onnx ir)
set(allow_ir/import ir ir/tvm ir/onnx)
set(allow_ir/hardware ir)
set(allow_ir/cost ir ir/hardware ir/partition)
set(allow_ir/fusion ir ir/hardware)
set(allow_ir/partition ir)
set(allow_ir/graphgen ir)
set(allow_scheduler ${ir_all})
set(allow_sim/io ir)
set(allow_sim/hw ${below_sim})
# sim/units/<kind>: a unit kind's folder (any kind: the row is matched by the pattern below) may use what
# every unit module uses; sim/units itself (the registry) includes only its kinds.def.
set(allow_sim/units ${below_sim} sim/hw)
set(allow_sim/units/KIND ${below_sim} sim/hw sim/units)
set(allow_sim/driver ${below_sim})
set(allow_sim/check ${below_sim})
set(allow_sim/replay ${below_sim} sim/hw)
set(allow_sim/retrain ${below_sim} sim/driver)
set(allow_sim/trace ${below_sim} sim/io sim/check sim/driver sim/retrain)
# Calibration fits the CPU kind's parameters from measurements of this CPU (and a GPU's model from a GPU's).
set(allow_sim/profile ${below_sim} sim/io sim/driver sim/retrain sim/units/cpu sim/units/gpu)
set(allow_sim/profile/cuda ${below_sim} sim/profile)
set(allow_sim/cli ${below_sim} ir/graphgen sim/io sim/hw sim/units sim/driver sim/check sim/replay sim/retrain
    sim/trace sim/profile)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_layers: pass -DSOURCE_DIR=<repository root>")
endif()
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/ir/*.h ${SOURCE_DIR}/ir/*.cc
     ${SOURCE_DIR}/scheduler/*.h ${SOURCE_DIR}/scheduler/*.cc ${SOURCE_DIR}/sim/*.h ${SOURCE_DIR}/sim/*.cc
     ${SOURCE_DIR}/sim/*.cu)
list(LENGTH sources file_count)
if(file_count EQUAL 0)
  message(FATAL_ERROR "check_layers: no sources under ${SOURCE_DIR}")
endif()

set(violations 0)
set(include_count 0)
foreach(source ${sources})
  get_filename_component(folder ${source} DIRECTORY)
  set(row ${folder})
  if(folder MATCHES "^sim/units/[^/]+$")
    set(row sim/units/KIND)
  endif()
  if(NOT DEFINED allow_${row})
    message(SEND_ERROR "check_layers: ${source}: folder '${folder}' has no row in tests/check_layers.cmake")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  file(STRINGS ${SOURCE_DIR}/${source} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" header "${line}")
    get_filename_component(header_folder ${header} DIRECTORY)
    if(NOT header_folder MATCHES "^(ir|scheduler|sim)(/|$)")
      continue() # tests/ helpers and the like are not layers
    endif()
    math(EXPR include_count "${include_count} + 1")
    if(header_folder STREQUAL folder)
      continue()
    endif()
    list(FIND allow_${row} ${header_folder} found)
    if(found EQUAL -1)
      message(SEND_ERROR "check_layers: ${source} includes \"${header}\": ${folder} may not depend on ${header_folder}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()

if(violations GREATER 0)
  message(FATAL_ERROR "check_layers: ${violations} include(s) against the layer table")
endif()
message(STATUS "check_layers: ${file_count} files, ${include_count} project includes, all in layer order")
