#pragma once
// Where each byte of a bash script stands, as bash's parser sees it: in code (unquoted words),
// inside quotes or a here-document (text a substituted value would be expanded in or could close),
// or in a comment. Job templates use it to place each placeholder only where its value is inert
// (jobs/jobscript.hpp). The scan is conservative: constructs it does not follow (a `case` inside
// `$( )`, say) come out quoted, never as code.
#include <string>
#include <vector>

namespace miniapp::jobs {

enum class ShellContext : unsigned char {
  code,    // unquoted, outside any quotes, `${ }` or here-document (inside `$( )` too)
  quoted,  // inside '...', "...", $'...', `...`, ${...}, or a here-document's body
  comment, // from an unquoted '#' that starts a word to the end of the line
};

// One context per byte of `script`.
std::vector<ShellContext> shell_contexts(const std::string& script);

} // namespace miniapp::jobs
