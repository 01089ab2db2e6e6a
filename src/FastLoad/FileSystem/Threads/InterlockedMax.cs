namespace FastLoad.FileSystem;

/// <summary>Lock-free "raise to at least".</summary>
internal static class InterlockedMax
{
    /// <summary>Raises <paramref name="location"/> to <paramref name="value"/> if that is larger; true if this call raised it.</summary>
    public static bool TryRaise(ref int location, int value)
    {
        int current = Volatile.Read(ref location);
        while (value > current)
        {
            int seen = Interlocked.CompareExchange(ref location, value, current);
            if (seen == current)
            {
                return true;
            }

            current = seen;
        }

        return false;
    }
}
