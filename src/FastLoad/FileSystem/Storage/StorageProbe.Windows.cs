using System.Globalization;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using FastLoad.FileSystem;
using Microsoft.Win32.SafeHandles;

namespace FastLoad;

public static partial class StorageProbe
{
    // Room for STORAGE_DEVICE_DESCRIPTOR and its vendor, product, revision and serial strings.
    private const int DeviceDescriptorCapacity = 1024;

    [SupportedOSPlatform("windows")]
    private static StorageDevice DescribeWindows(string path)
    {
        string full = Path.GetFullPath(path);
        string root = WindowsVolume.RootOf(full) ?? Path.GetPathRoot(full) ?? full;
        return Cache.GetOrAdd(root.ToUpperInvariant(), static (_, volume) => ProbeWindows(volume), root);
    }

    [SupportedOSPlatform("windows")]
    private static unsafe StorageDevice ProbeWindows(string root)
    {
        string name = root.TrimEnd('\\');

        // Each query that fails is named with its error and shown after the kind, so that "Unknown" says why (Wine, for
        // one, answers no storage query; a volume that cannot be opened without elevation is another).
        var unreported = new List<string>();
        string id = string.Empty;
        if (WindowsVolume.TryGetInformation(root, out uint serial, out string? fileSystem))
        {
            id = serial.ToString("X8", CultureInfo.InvariantCulture);
        }
        else
        {
            unreported.Add(Failed("GetVolumeInformationW"));
        }

        switch (Interop.GetDriveType(root))
        {
            case Interop.DriveRemote:
                return new StorageDevice(id, name, StorageKind.Network, StorageBus.Network, null, null, null, fileSystem);
            case Interop.DriveRamDisk:
                return new StorageDevice(id, name, StorageKind.Memory, StorageBus.Memory, null, null, null, fileSystem);
        }

        // No access rights asked: the storage queries need none, so this works without elevation.
        string device = WindowsVolume.GuidPathOf(root) is { } guidPath ? guidPath.TrimEnd('\\') : @"\\.\" + name;
        using SafeFileHandle volume = Interop.CreateFile(device, 0, Interop.FileShareRead | Interop.FileShareWrite, null, Interop.OpenExisting, 0, 0);
        if (volume.IsInvalid)
        {
            unreported.Add(Failed($"opening {device}"));
            return new StorageDevice(id, name, StorageKind.Unknown, StorageBus.Unknown, null, null, null, fileSystem, Join(unreported));
        }

        bool? seekPenalty = QuerySeekPenalty(volume);
        if (seekPenalty is null)
        {
            unreported.Add(Failed("the seek penalty query"));
        }

        (int busType, string? model) = QueryDevice(volume);
        if (busType < 0)
        {
            unreported.Add(Failed("the device descriptor query"));
        }
        StorageBus bus = busType switch
        {
            Interop.BusTypeNvme => StorageBus.Nvme,
            Interop.BusTypeScsi or Interop.BusTypeAtapi or Interop.BusTypeAta
                or Interop.BusTypeUsb or Interop.BusTypeSas or Interop.BusTypeSata => StorageBus.Scsi,
            Interop.BusTypeSd or Interop.BusTypeMmc => StorageBus.Mmc,
            _ => StorageBus.Unknown,
        };

        // Virtual disks, Storage Spaces and RAID volumes report a seek penalty whatever backs them, as virtio does on Linux.
        bool reportIsUntrusted = busType is Interop.BusTypeVirtual or Interop.BusTypeFileBackedVirtual or Interop.BusTypeSpaces or Interop.BusTypeRaid;
        StorageKind kind = bus switch
        {
            StorageBus.Nvme => StorageKind.SolidState,
            _ when seekPenalty == false => StorageKind.SolidState,
            _ when reportIsUntrusted => StorageKind.Unknown,
            _ when seekPenalty == true => StorageKind.Rotational,
            _ => StorageKind.Unknown,
        };
        return new StorageDevice(id, name, kind, bus, seekPenalty, null, model, fileSystem, Join(unreported));
    }

    // Called at once after the failing call, while its error is still the last one; 0 is a call that succeeded with too short an answer.
    private static string Failed(string what) => Marshal.GetLastPInvokeError() is var error and not 0
        ? $"{what} failed: error {error.ToString(CultureInfo.InvariantCulture)}"
        : $"{what} gave no usable answer";

    private static string? Join(List<string> unreported) => unreported.Count == 0 ? null : string.Join("; ", unreported);

    /// <summary>DEVICE_SEEK_PENALTY_DESCRIPTOR.IncursSeekPenalty of the disk under a volume, or <see langword="null"/> where it does not say.</summary>
    [SupportedOSPlatform("windows")]
    private static unsafe bool? QuerySeekPenalty(SafeFileHandle volume)
    {
        var query = new Interop.StoragePropertyQuery { PropertyId = Interop.StorageDeviceSeekPenaltyProperty, QueryType = Interop.PropertyStandardQuery };
        Interop.DeviceSeekPenaltyDescriptor descriptor = default;
        uint returned = 0;
        bool queried = Interop.DeviceIoControl(
            volume,
            Interop.IoctlStorageQueryProperty,
            &query,
            (uint)sizeof(Interop.StoragePropertyQuery),
            &descriptor,
            (uint)sizeof(Interop.DeviceSeekPenaltyDescriptor),
            &returned,
            null);
        return queried && returned >= sizeof(Interop.DeviceSeekPenaltyDescriptor) ? descriptor.IncursSeekPenalty != 0 : null;
    }

    /// <summary>STORAGE_DEVICE_DESCRIPTOR's bus type (-1 where unknown) and "vendor product" of the disk under a volume.</summary>
    [SupportedOSPlatform("windows")]
    private static unsafe (int BusType, string? Model) QueryDevice(SafeFileHandle volume)
    {
        var query = new Interop.StoragePropertyQuery { PropertyId = Interop.StorageDeviceProperty, QueryType = Interop.PropertyStandardQuery };
        byte* buffer = stackalloc byte[DeviceDescriptorCapacity];
        uint returned = 0;
        if (!Interop.DeviceIoControl(
            volume, Interop.IoctlStorageQueryProperty, &query, (uint)sizeof(Interop.StoragePropertyQuery), buffer, DeviceDescriptorCapacity, &returned, null)
            || returned < sizeof(Interop.StorageDeviceDescriptor))
        {
            return (-1, null);
        }

        var descriptor = *(Interop.StorageDeviceDescriptor*)buffer;
        var bytes = new ReadOnlySpan<byte>(buffer, (int)Math.Min(returned, DeviceDescriptorCapacity));

        // An offset of 0 means the string is absent; NVMe disks often have no vendor and the whole name as product.
        string? vendor = DescriptorString(bytes, descriptor.VendorIdOffset);
        string? product = DescriptorString(bytes, descriptor.ProductIdOffset);
        string? model = vendor is null ? product : product is null ? vendor : $"{vendor} {product}";
        return (descriptor.BusType, model);
    }

    private static string? DescriptorString(ReadOnlySpan<byte> descriptor, uint offset) =>
        offset > 0 && offset < descriptor.Length ? NativeString(descriptor[(int)offset..]) : null;
}
