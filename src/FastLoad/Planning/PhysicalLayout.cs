using System.Runtime.InteropServices;
using FastLoad.Internal;
using FastLoad.Reading;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.Planning;

/// <summary>Where files lie on the device, so that a spinning disk can read them in one sweep instead of seeking back and forth.</summary>
internal static unsafe class PhysicalLayout
{
    private const ulong Unknown = ulong.MaxValue;

    /// <summary>Sorts files by the physical offset of their first extent; files whose offset is unknown keep their order, at the end.</summary>
    public static void Sort(List<PlannedFile> files)
    {
        if (!OperatingSystem.IsLinux())
        {
            return;
        }

        var offsets = new Dictionary<int, ulong>(files.Count);
        foreach (PlannedFile file in files)
        {
            offsets[file.Index] = file.Error is null ? FirstExtentOffset(file.Path) : Unknown;
        }

        files.Sort((a, b) =>
        {
            int byOffset = offsets[a.Index].CompareTo(offsets[b.Index]);
            return byOffset != 0 ? byOffset : a.Index.CompareTo(b.Index);
        });
    }

    /// <summary>The physical byte offset of a file's first extent (Linux FIEMAP), or <see cref="ulong.MaxValue"/> where unknown.</summary>
    internal static ulong FirstExtentOffset(string path)
    {
        try
        {
            using SafeFileHandle handle = ReadableFile.Open(path, out _);
            Interop.Fiemap map = default;
            map.Length = ulong.MaxValue;
            map.ExtentCount = 1;
            if (Interop.Ioctl((int)handle.DangerousGetHandle(), Interop.FsIocFiemap, &map) != 0 || map.MappedExtents == 0)
            {
                return Unknown;
            }

            return map.FirstExtentPhysical;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return Unknown; // Reading reports the file's problem.
        }
    }
}
