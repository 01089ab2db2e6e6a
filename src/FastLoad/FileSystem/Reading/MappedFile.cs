using System.IO.MemoryMappedFiles;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// A file mapped read-only as a file's contents. The length is the file's at open: a file that shrinks later is not
/// seen (touching its lost pages raises SIGBUS), which the option that asks for mapping (<c>FileLoaderOptions.UseMemoryMapping</c>) documents.
/// </summary>
internal static unsafe class MappedFile
{
    /// <summary>Maps the file; pages are read when first touched. Takes over the handle.</summary>
    /// <param name="handle">The open file; set to <see langword="null"/> once the mapping owns it.</param>
    /// <param name="length">The file's length at open.</param>
    /// <param name="wrap">Makes the contents from the mapped pointer; a parameter so that a test can make it fail.</param>
    public static FileContents Map(ref SafeFileHandle handle, long length, Func<IntPtr, long, Action, FileContents>? wrap = null)
    {
        MemoryMappedFile mapping = MemoryMappedFile.CreateFromFile(
            handle, mapName: null, 0, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: false);
        handle = null!; // Owned by the mapping now.
        MemoryMappedViewAccessor? view = null;
        bool acquired = false;
        try
        {
            view = mapping.CreateViewAccessor(0, 0, MemoryMappedFileAccess.Read);
            byte* pointer = null;
            view.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);
            acquired = true;
            MemoryMappedViewAccessor owned = view;
            Action release = () =>
            {
                owned.SafeMemoryMappedViewHandle.ReleasePointer();
                owned.Dispose();
                mapping.Dispose();
            };
            byte* start = pointer + view.PointerOffset;
            return wrap is null ? NativeContents.Wrap(start, length, release) : wrap((IntPtr)start, length, release);
        }
        catch
        {
            // A view whose pointer is still acquired is never unmapped, whatever Dispose is called.
            if (acquired)
            {
                view!.SafeMemoryMappedViewHandle.ReleasePointer();
            }

            view?.Dispose();
            mapping.Dispose();
            throw;
        }
    }
}
