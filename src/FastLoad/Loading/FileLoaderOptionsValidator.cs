using Microsoft.Extensions.Options;

namespace FastLoad;

/// <summary>Checks <see cref="FileLoaderOptions"/> against the ranges on its properties (generated).</summary>
[OptionsValidator]
internal sealed partial class FileLoaderOptionsValidator : IValidateOptions<FileLoaderOptions>
{
}
