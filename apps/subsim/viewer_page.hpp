#pragma once
// The page of `subsim view`: one self-contained HTML file that plays a recording (viewer/
// viewer.html, with three.js from npm and the recording's data written into it), so that opening
// it needs no network and no server; or the same page live, its steps asked of the server of
// `--serve` (live_view.hpp).
//
// The page's data (a JSON object in the page's "subsim-data" script): scene, solver, dt; bodies
// (name, kind: 0 dynamic, 1 static, 2 kinematic, 3 robot link); shapes (body, type: 0 sphere, 1
// capsule, 2 box, 3 cylinder, 4 plane, 5 signed distance; size; pose x y z qw qx qy qz in the body
// frame; a signed distance shape's surface as vertices, float x y z, and triangles, int32);
// deformable_names, deformable_nodes and deformable_surface (node indices, int32); live (true:
// the page asks its server for the steps, `subsim run --serve`); and, on a page that is not
// live, frames: the steps.  Frames (also what a live page's server answers to
// /frames?from=K): first (the index of their first step); per step time, solver_ms, residual,
// max_penetration, energy (null where a recording lacks it); and, base64 of little-endian
// float32 (int32 for indices), position (steps x bodies x 3), orientation (steps x bodies x 4,
// w x y z), deformable_x (steps x nodes x 3), contact_begin (steps + 1 offsets), contact_point,
// contact_normal, contact_impulse (contacts x 3); from a server also done (true once the run has
// ended and these are its last steps).
#include <cstddef>
#include <string>

#include "subsim/sim/recorder.hpp"

namespace subsim::cli {

/// True when the build found three.js (viewer/node_modules, installed by scripts/setup.sh).
bool viewerAvailable();

/// The page for `rec`; std::runtime_error when the build has no three.js (viewerAvailable()).
std::string viewerPage(const Recording& rec);

/// The page's data object (see above), as JSON text with "</" escaped for a script element.
std::string viewerData(const Recording& rec);

/// A live page: `header`'s bodies, shapes and deformables, the steps from its server.
std::string liveViewerPage(const Recording& header);

/// Steps [first, end) of `rec` as the frames object above, JSON text; done when `done` and
/// `end` is the last step.
std::string viewerFrames(const Recording& rec, std::size_t first, std::size_t end, bool done);

/// The end of the steps from `first` that one answer of a live page's server holds: a few MB.
std::size_t viewerFramesEnd(const Recording& rec, std::size_t first);

}  // namespace subsim::cli
