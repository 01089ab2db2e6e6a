using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

internal static partial class PhysicalLayout
{
    /// <summary>The physical byte offset of the first extent (FIEMAP), or <see cref="Unknown"/>.</summary>
    private static unsafe ulong FirstExtentLinux(SafeFileHandle handle)
    {
        Interop.Fiemap map = default;
        map.Length = ulong.MaxValue;
        map.ExtentCount = 1;
        if (Interop.Ioctl((int)handle.DangerousGetHandle(), Interop.FsIocFiemap, &map) != 0 || map.MappedExtents == 0)
        {
            return Unknown;
        }

        return map.FirstExtentPhysical;
    }
}
