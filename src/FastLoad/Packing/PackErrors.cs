namespace FastLoad.Packing;

/// <summary>The exceptions of a corrupt pack, built out of line so the validation paths stay small.</summary>
internal static class PackErrors
{
    public static InvalidDataException Corrupt(string packPath, long offset, string what) =>
        new($"'{packPath}' is not a valid pack: {what} (at offset {offset:N0}).");

    public static InvalidDataException CorruptEntry(string packPath, long offset, int index, string? name, string what) =>
        new($"'{packPath}' is not a valid pack: entry {index}{(name is null ? string.Empty : $" '{name}'")}: {what} (at offset {offset:N0}).");
}
