using Microsoft.Extensions.Options;

namespace FastLoad;

/// <summary>Checks <see cref="PackOptions"/> against the ranges on its properties (generated).</summary>
[OptionsValidator]
internal sealed partial class PackOptionsValidator : IValidateOptions<PackOptions>
{
}
