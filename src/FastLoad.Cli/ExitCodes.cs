namespace FastLoad.Cli;

/// <summary>The tool's exit codes.</summary>
internal static class ExitCodes
{
    public const int Success = 0;
    public const int SomeFailed = 1;
    public const int Usage = 2;
}
