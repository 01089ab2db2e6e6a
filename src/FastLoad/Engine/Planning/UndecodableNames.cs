namespace FastLoad.Engine;

/// <summary>
/// The positions of a set's names that cannot name one file for sure: .NET decodes a file name that is not valid UTF-8
/// with U+FFFD in place of the bad bytes, so two entries of one listing can come out as the same string; the second and
/// later ones are marked.
/// </summary>
internal sealed class UndecodableNames
{
    private readonly HashSet<string> _seen = new(StringComparer.Ordinal);
    private readonly HashSet<int> _positions = [];

    /// <summary>Records a name with U+FFFD at <paramref name="index"/>; marks it when an earlier name decoded the same.</summary>
    public void Add(string path, int index)
    {
        if (!_seen.Add(path))
        {
            _positions.Add(index);
        }
    }

    public bool Contains(int index) => _positions.Contains(index);
}
