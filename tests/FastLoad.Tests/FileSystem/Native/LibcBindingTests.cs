using System.Runtime.InteropServices;
using FastLoad.FileSystem;
using FastLoad.Tests.Infrastructure;

namespace FastLoad.Tests.Reliability;

/// <summary>
/// The library's C library calls on Linux bind to the glibc the process runs on, without the runtime's search by name
/// (which loads ICU under NativeAOT): the resolver is set when the library loads, and answers for its two names only.
/// </summary>
public class LibcBindingTests
{
    [LinuxFact("the binding is made on Linux only")]
    public void LibraryLoaded_ItsImportsHaveAResolverAlready()
    {
        // A second resolver for the same assembly is refused: the library's own was set by its module initializer.
        Assert.Throws<InvalidOperationException>(
            () => NativeLibrary.SetDllImportResolver(typeof(FileLoader).Assembly, static (_, _, _) => 0));
    }

    [LinuxFact("the binding is made on Linux only")]
    public void ResolveLibc_GlibcForItsNames_TheRuntimesSearchForOthers()
    {
        bool glibc = NativeLibrary.TryLoad("libc.so.6", out nint expected);

        Assert.Equal(glibc ? expected : 0, Interop.ResolveLibc("libc", typeof(FileLoader).Assembly, null));
        Assert.Equal(glibc ? expected : 0, Interop.ResolveLibc("libc.so.6", typeof(FileLoader).Assembly, null));
        Assert.Equal(0, Interop.ResolveLibc("libz", typeof(FileLoader).Assembly, null));
    }
}
