using Microsoft.Extensions.Options;

namespace FastLoad;

/// <summary>Checks <see cref="PackReaderOptions"/> against the ranges on its properties (generated).</summary>
[OptionsValidator]
internal sealed partial class PackReaderOptionsValidator : IValidateOptions<PackReaderOptions>
{
}
