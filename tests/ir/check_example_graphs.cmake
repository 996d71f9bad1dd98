# Regenerates the example graphs into OUT_DIR and fails if they differ from tests/data/.
execute_process(COMMAND ${PYTHON} ${SOURCE_DIR}/scripts/make_example_graphs.py ${OUT_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_example_graphs.py failed (${rc})")
endif()
foreach(name mlp2.json transformer_block.json)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT_DIR}/${name} ${SOURCE_DIR}/tests/data/${name}
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "tests/data/${name} differs from what scripts/make_example_graphs.py writes; rerun it")
  endif()
endforeach()
