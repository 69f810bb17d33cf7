/* Linked into the sanitizer builds' test programs only (tests/CMakeLists.txt, and
 * cs_sel_threads under ThreadSanitizer): dlclose does nothing, so shared objects stay mapped
 * until the process ends.
 *
 * Why: LeakSanitizer looks for leaks at exit and names the module of every frame of a leak's
 * stack. Open MPI unloads its components (mca_*.so) in MPI_Finalize, so the frames of the
 * blocks they leaked become "<unknown module>", which no suppression can name; with the
 * components still mapped, tests/lsan.supp names them. ThreadSanitizer, told to ignore the
 * memory functions a component calls (tests/tsan.supp, called_from_lib), stops the process
 * when that component is unloaded. The programs' own (collsel's) code is
 * never unloaded, so nothing of collsel is hidden by this. */
#include <dlfcn.h>

__attribute__((visibility("default"))) int dlclose(void *handle) {
    (void)handle;
    return 0;
}
