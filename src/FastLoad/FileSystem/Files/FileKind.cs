namespace FastLoad.FileSystem;

/// <summary>What a path names, as the file system reports it (symbolic links followed).</summary>
internal enum FileKind
{
    Unknown,
    Regular,
    Directory,
    Fifo,
    CharacterDevice,
    BlockDevice,
    Socket,
}
