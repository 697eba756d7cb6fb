#pragma once
// MINIAPP_UNDER_SANITIZER: 1 in a build instrumented by AddressSanitizer or MemorySanitizer (the
// asan preset), where allocation failures abort instead of throwing and the instrumentation, not
// the memory level, bounds a loop's rate.
#if defined(__SANITIZE_ADDRESS__)
#define MINIAPP_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define MINIAPP_UNDER_SANITIZER 1
#endif
#endif
#ifndef MINIAPP_UNDER_SANITIZER
#define MINIAPP_UNDER_SANITIZER 0
#endif
