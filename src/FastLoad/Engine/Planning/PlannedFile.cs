namespace FastLoad.Engine;

/// <summary>
/// A file of a load as the pipeline plans it, before it is opened: where it is in the set and the device its directory
/// lies on. A class, so that the generic queues and blocks it passes through share the code the framework ships
/// compiled instead of compiling their own at run time.
/// </summary>
internal sealed class PlannedFile(int index, string path, ulong deviceId)
{
    public int Index { get; } = index;

    public string Path { get; } = path;

    public ulong DeviceId { get; } = deviceId;
}
