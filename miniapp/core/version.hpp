#pragma once
// The program's version and the git revision it was built from (generated at configure time into
// one small source file, so a new revision recompiles that file only).
namespace miniapp {
const char* version();
const char* git_revision();
} // namespace miniapp
