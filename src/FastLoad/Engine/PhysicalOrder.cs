namespace FastLoad;

/// <summary>Whether files are read in the order of their location on the device, which spares a spinning disk its seeks.</summary>
public enum PhysicalOrder
{
    /// <summary>On for rotational devices when files are delivered in completion order; off otherwise.</summary>
    Auto = 0,

    /// <summary>
    /// Always (Linux: FIEMAP; Windows: FSCTL_GET_RETRIEVAL_POINTERS; macOS, and files whose file system cannot say:
    /// path order). Needs <see cref="LoadOrdering.Completion"/>.
    /// </summary>
    On = 1,

    /// <summary>Never: files are read in the order of the set.</summary>
    Off = 2,
}
