namespace FastLoad;

/// <summary>The order in which a load delivers its files.</summary>
public enum LoadOrdering
{
    /// <summary>Each file as soon as it is read: the fastest, the order varies from run to run.</summary>
    Completion = 0,

    /// <summary>In the order of the <see cref="FileSet"/>; later files wait, within a bounded window, for earlier ones.</summary>
    Input = 1,
}
