export { checkHost, CHECK_HOST_DEFAULTS, type CheckHostInput, type CheckHostOptions, type CheckHostResult, type SpfResult } from './evaluator.ts';
export {
  parseSpfRecord,
  parseDomainSpec,
  isSpfRecordText,
  SPF_ERROR,
  type DomainSpec,
  type Qualifier,
  type SpfErrorCode,
  type SpfMechanism,
  type SpfModifier,
  type SpfParseResult,
  type SpfRecord,
  type SpfSyntaxError,
  type SpfTerm,
} from './parser.ts';
export { parseMacroString, expandMacros, type MacroContext, type MacroToken, type MacroValues } from './macro.ts';
export { selectSpfRecords } from './select.ts';
export {
  analyzeSpf,
  ANALYZE_DEFAULTS,
  type SpfAnalysis,
  type SpfAnalyzeOptions,
  type SpfNodeStatus,
  type SpfTermInfo,
  type SpfTreeNode,
} from './analyzer.ts';
export { SPF_WARNING, type SpfWarning, type SpfWarningCode } from './warnings.ts';
