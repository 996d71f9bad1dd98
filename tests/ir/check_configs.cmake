# Regenerates the shipped configs into OUT_DIR and fails if they differ from configs/.
file(MAKE_DIRECTORY ${OUT_DIR})
execute_process(COMMAND ${PYTHON} ${SOURCE_DIR}/configs/generate.py ${OUT_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configs/generate.py failed (${rc})")
endif()
foreach(name cpu.json gpu.json photonic.json lightcode.json lightcode-cpu.json a100.json h100.json tpu-v1.json systolic.json
             published/dota-b-4bit.json published/dota-b-8bit.json published/dota-l-4bit.json
             published/dota-l-8bit.json published/mrr-bank-4bit.json published/mrr-bank-8bit.json
             published/mzi-4bit.json published/mzi-8bit.json)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT_DIR}/${name} ${SOURCE_DIR}/configs/${name}
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "configs/${name} differs from what configs/generate.py writes; rerun it")
  endif()
endforeach()
