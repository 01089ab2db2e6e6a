using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace FastLoad.FileSystem;

/// <summary>
/// The few kernel32 calls the Windows code paths need; callers check <see cref="OperatingSystem.IsWindows"/> first.
/// Layouts and values are those of the Windows SDK headers (winioctl.h, ntddstor.h, fileapi.h, minwinbase.h).
/// </summary>
internal static unsafe partial class Interop
{
    private const string Kernel32 = "kernel32.dll";

    internal const int ErrorMoreData = 234;

    /// <summary>GetDriveTypeW: a network drive, mapped or UNC.</summary>
    internal const uint DriveRemote = 4;

    /// <summary>GetDriveTypeW: a RAM disk.</summary>
    internal const uint DriveRamDisk = 6;

    // GetFileType values: a file on a disk, a character device (NUL, CON, COM1), a pipe or socket.
    internal const uint FileTypeDisk = 0x1;
    internal const uint FileTypeChar = 0x2;
    internal const uint FileTypePipe = 0x3;

    internal const uint FileShareRead = 0x1;
    internal const uint FileShareWrite = 0x2;
    internal const uint OpenExisting = 3;

    /// <summary>FILE_FLAG_NO_BUFFERING, which <see cref="File.OpenHandle"/> passes through to CreateFileW.</summary>
    internal const FileOptions NoBuffering = (FileOptions)0x20000000;

    /// <summary>IOCTL_STORAGE_QUERY_PROPERTY = CTL_CODE(IOCTL_STORAGE_BASE 0x2D, 0x500, METHOD_BUFFERED, FILE_ANY_ACCESS).</summary>
    internal const uint IoctlStorageQueryProperty = 0x002D1400;

    /// <summary>FSCTL_GET_RETRIEVAL_POINTERS = CTL_CODE(FILE_DEVICE_FILE_SYSTEM 9, 28, METHOD_NEITHER, FILE_ANY_ACCESS).</summary>
    internal const uint FsctlGetRetrievalPointers = 0x00090073;

    // STORAGE_PROPERTY_ID and STORAGE_QUERY_TYPE values.
    internal const int StorageDeviceProperty = 0;
    internal const int StorageDeviceSeekPenaltyProperty = 7;
    internal const int PropertyStandardQuery = 0;

    // STORAGE_BUS_TYPE values.
    internal const int BusTypeScsi = 0x1;
    internal const int BusTypeAtapi = 0x2;
    internal const int BusTypeAta = 0x3;
    internal const int BusTypeUsb = 0x7;
    internal const int BusTypeRaid = 0x8;
    internal const int BusTypeSas = 0xA;
    internal const int BusTypeSata = 0xB;
    internal const int BusTypeSd = 0xC;
    internal const int BusTypeMmc = 0xD;
    internal const int BusTypeVirtual = 0xE;
    internal const int BusTypeFileBackedVirtual = 0xF;
    internal const int BusTypeSpaces = 0x10;
    internal const int BusTypeNvme = 0x11;

    /// <summary>FILE_INFO_BY_HANDLE_CLASS.FileStorageInfo (Windows 8 and later).</summary>
    internal const int FileStorageInfoClass = 16;

    /// <summary><c>STORAGE_PROPERTY_QUERY</c> (12 bytes: two enums and one byte of parameters, padded).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct StoragePropertyQuery
    {
        public int PropertyId;
        public int QueryType;
        public byte AdditionalParameters;
    }

    /// <summary><c>DEVICE_SEEK_PENALTY_DESCRIPTOR</c> (12 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct DeviceSeekPenaltyDescriptor
    {
        public uint Version;
        public uint Size;
        public byte IncursSeekPenalty;
    }

    /// <summary>The fixed part of <c>STORAGE_DEVICE_DESCRIPTOR</c>; the strings follow at the given offsets from its start.</summary>
    [StructLayout(LayoutKind.Explicit, Size = 36)]
    internal struct StorageDeviceDescriptor
    {
        [FieldOffset(0)] public uint Version;
        [FieldOffset(4)] public uint Size;
        [FieldOffset(12)] public uint VendorIdOffset;
        [FieldOffset(16)] public uint ProductIdOffset;
        [FieldOffset(28)] public int BusType;
    }

    /// <summary><c>RETRIEVAL_POINTERS_BUFFER</c> with room for one extent (LARGE_INTEGERs are 8-byte aligned).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 32)]
    internal struct RetrievalPointersBuffer
    {
        [FieldOffset(0)] public uint ExtentCount;
        [FieldOffset(8)] public long StartingVcn;
        [FieldOffset(16)] public long FirstExtentNextVcn;
        [FieldOffset(24)] public long FirstExtentLcn;
    }

    /// <summary><c>FILE_STORAGE_INFO</c> (seven ULONGs).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct FileStorageInfo
    {
        public uint LogicalBytesPerSector;
        public uint PhysicalBytesPerSectorForAtomicity;
        public uint PhysicalBytesPerSectorForPerformance;
        public uint FileSystemEffectivePhysicalBytesPerSectorForAtomicity;
        public uint Flags;
        public uint ByteOffsetForSectorAlignment;
        public uint ByteOffsetForPartitionAlignment;
    }

    /// <summary><c>BY_HANDLE_FILE_INFORMATION</c> (52 bytes; the three FILETIMEs are 4-byte aligned).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 52)]
    internal struct ByHandleFileInformation
    {
        [FieldOffset(0)] public uint FileAttributes;
        [FieldOffset(28)] public uint VolumeSerialNumber;
        [FieldOffset(32)] public uint FileSizeHigh;
        [FieldOffset(36)] public uint FileSizeLow;
        [FieldOffset(44)] public uint FileIndexHigh;
        [FieldOffset(48)] public uint FileIndexLow;
    }

    [LibraryImport(Kernel32, EntryPoint = "GetVolumePathNameW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool GetVolumePathName(string fileName, char* volumePathName, uint bufferLength);

    [LibraryImport(Kernel32, EntryPoint = "GetVolumeNameForVolumeMountPointW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool GetVolumeNameForVolumeMountPoint(string volumeMountPoint, char* volumeName, uint bufferLength);

    [LibraryImport(Kernel32, EntryPoint = "GetDriveTypeW", StringMarshalling = StringMarshalling.Utf16)]
    internal static partial uint GetDriveType(string rootPathName);

    [LibraryImport(Kernel32, EntryPoint = "GetVolumeInformationW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool GetVolumeInformation(
        string rootPathName, char* volumeName, uint volumeNameSize, uint* serialNumber, uint* maximumComponentLength,
        uint* fileSystemFlags, char* fileSystemName, uint fileSystemNameSize);

    [LibraryImport(Kernel32, EntryPoint = "CreateFileW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    internal static partial SafeFileHandle CreateFile(
        string fileName, uint desiredAccess, uint shareMode, void* securityAttributes, uint creationDisposition, uint flagsAndAttributes, nint templateFile);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool DeviceIoControl(
        SafeFileHandle device, uint ioControlCode, void* inBuffer, uint inBufferSize, void* outBuffer,
        uint outBufferSize, uint* bytesReturned, void* overlapped);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool GetFileInformationByHandleEx(SafeFileHandle file, int informationClass, void* information, uint bufferSize);

    [LibraryImport(Kernel32, SetLastError = true)]
    internal static partial uint GetFileType(SafeFileHandle file);

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool GetFileInformationByHandle(SafeFileHandle file, out ByHandleFileInformation information);

    /// <summary>THREAD_MODE_BACKGROUND_BEGIN: the calling thread's I/O and memory priority drop to background.</summary>
    internal const int ThreadModeBackgroundBegin = 0x00010000;

    [LibraryImport(Kernel32)]
    internal static partial nint GetCurrentThread();

    [LibraryImport(Kernel32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool SetThreadPriority(nint thread, int priority);

    private const string Advapi32 = "advapi32.dll";

    /// <summary>OPERATION_API_VERSION of the operation recorder (Windows 8 and later).</summary>
    internal const uint OperationApiVersion = 1;

    /// <summary>OPERATION_END_DISCARD: forget what was recorded of the operation.</summary>
    internal const uint OperationEndDiscard = 1;

    /// <summary><c>OPERATION_START_PARAMETERS</c> and <c>OPERATION_END_PARAMETERS</c>, which share one layout.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct OperationParameters
    {
        public uint Version;
        public uint OperationId;
        public uint Flags;
    }

    [LibraryImport(Advapi32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool OperationStart(in OperationParameters parameters);

    [LibraryImport(Advapi32, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    internal static partial bool OperationEnd(in OperationParameters parameters);
}
