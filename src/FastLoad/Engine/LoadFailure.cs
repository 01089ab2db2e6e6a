namespace FastLoad;

/// <summary>A file that could not be loaded, and why.</summary>
/// <param name="Path">The path of the file, as the <see cref="FileSet"/> produced it.</param>
/// <param name="Exception">The cause; its message names the path.</param>
public sealed record LoadFailure(string Path, Exception Exception);
