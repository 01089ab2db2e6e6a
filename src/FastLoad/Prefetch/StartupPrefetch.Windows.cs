using System.Runtime.Versioning;
using FastLoad.FileSystem;

namespace FastLoad;

public sealed partial class StartupPrefetch
{
    /// <summary>The operation recorder's id for this application's start (ids are kept per application).</summary>
    private const uint StartupOperationId = 1;

    /// <summary>Windows records and replays the start itself (<c>OperationStart</c>), so FastLoad does not replay.</summary>
    private bool _systemReplays;

    /// <summary>
    /// Windows 8 and later record an application-defined operation and prefetch its files when it next begins
    /// (the operation recorder, which ASP.NET 4.5's prefetch used); where it refuses, FastLoad replays its own manifest.
    /// </summary>
    private void StartSystemRecorder()
    {
        if (OperatingSystem.IsWindows())
        {
            _systemReplays = StartWindows();
        }
    }

    private void EndSystemRecorder(bool discard)
    {
        if (OperatingSystem.IsWindows() && _systemReplays)
        {
            EndWindows(discard);
        }
    }

    [SupportedOSPlatform("windows")]
    private static bool StartWindows()
    {
        try
        {
            var parameters = new Interop.OperationParameters { Version = Interop.OperationApiVersion, OperationId = StartupOperationId };
            return Interop.OperationStart(in parameters);
        }
        catch (Exception ex) when (ex is EntryPointNotFoundException or DllNotFoundException)
        {
            return false;
        }
    }

    [SupportedOSPlatform("windows")]
    private static void EndWindows(bool discard)
    {
        var parameters = new Interop.OperationParameters
        {
            Version = Interop.OperationApiVersion,
            OperationId = StartupOperationId,
            Flags = discard ? Interop.OperationEndDiscard : 0,
        };
        _ = Interop.OperationEnd(in parameters);
    }
}
