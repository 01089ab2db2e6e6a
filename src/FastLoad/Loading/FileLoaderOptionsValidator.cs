using Microsoft.Extensions.Options;

namespace FastLoad;

/// <summary>Checks <see cref="FileLoaderOptions"/> against the ranges on its properties (generated).</summary>
[OptionsValidator]
internal sealed partial class FileLoaderOptionsValidator : IValidateOptions<FileLoaderOptions>
{
}

/// <summary>Checks the rules of <see cref="FileLoaderOptions"/> that involve more than one property.</summary>
internal sealed class FileLoaderOptionsCrossValidator : IValidateOptions<FileLoaderOptions>
{
    public ValidateOptionsResult Validate(string? name, FileLoaderOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.PhysicalOrder == PhysicalOrder.On && options.Ordering == LoadOrdering.Input
            ? ValidateOptionsResult.Fail(
                "PhysicalOrder.On needs Ordering = LoadOrdering.Completion: reading in physical order and delivering in input order would hold every file read ahead of its turn.")
            : ValidateOptionsResult.Success;
    }
}
