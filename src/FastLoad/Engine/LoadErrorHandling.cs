namespace FastLoad;

/// <summary>What a load does when a file cannot be read.</summary>
public enum LoadErrorHandling
{
    /// <summary>Stop the load and throw the file's error (the path is in its message); every buffer is returned.</summary>
    Throw = 0,

    /// <summary>Go on: the file is delivered with <see cref="LoadedFile.Error"/> set and listed in <see cref="LoadSummary.Failures"/>.</summary>
    Collect = 1,
}
