using Microsoft.Extensions.Options;

namespace FastLoad;

/// <summary>
/// Checks <see cref="FileLoaderOptions"/> for the options library (<c>ValidateOnStart</c>), as a loader does:
/// <see cref="FileLoaderOptions.Validate"/>.
/// </summary>
internal sealed class FileLoaderOptionsValidator : IValidateOptions<FileLoaderOptions>
{
    public ValidateOptionsResult Validate(string? name, FileLoaderOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.Validate() is { } failure ? ValidateOptionsResult.Fail(failure) : ValidateOptionsResult.Success;
    }
}
