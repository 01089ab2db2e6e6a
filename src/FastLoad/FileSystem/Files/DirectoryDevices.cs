namespace FastLoad.FileSystem;

/// <summary>
/// The device each directory of a load lies on, looked up once per directory: a file lies on its directory's device
/// (unless it is itself a link to another device; then only its lane is off, never its bytes).
/// </summary>
internal sealed class DirectoryDevices
{
    private readonly Dictionary<string, ulong> _devices = new(StringComparer.Ordinal);

    public ulong Of(string path)
    {
        string directory = Path.GetDirectoryName(path) is { Length: > 0 } name ? name : ".";
        if (!_devices.TryGetValue(directory, out ulong device))
        {
            device = FileStatus.DeviceOfDirectory(directory);
            _devices[directory] = device;
        }

        return device;
    }
}
