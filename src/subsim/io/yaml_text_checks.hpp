#pragma once
// Checks of YAML text made before yaml-cpp parses it: printable UTF-8, a block map (or sequence)
// at the root, one document, no ',' outside flow collections.  Each guards against input that
// makes yaml-cpp 0.7 loop for ever (found by fuzz/fuzz_scene_file); each throws SceneError.
//
// INTERNAL (yaml_reader.hpp): not installed.
#include <string>

#include "subsim/io/yaml_reader.hpp"

namespace subsim::yaml {

/// The root and document checks (and printable UTF-8 text); returns without a verdict on
/// anything else.
void checkYamlRoot(const Reader& reader, const std::string& text);

/// A ',' in block context where a node starts or right after one ends.
void checkBlockCommas(const Reader& reader, const std::string& text);

}  // namespace subsim::yaml
