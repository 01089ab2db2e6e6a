namespace FastLoad.Planning;

/// <summary>A file of a load as planning saw it: where it is in the set, its size, or why it cannot be read.</summary>
internal readonly record struct PlannedFile(int Index, string Path, long Length, ulong DeviceId, Exception? Error);
