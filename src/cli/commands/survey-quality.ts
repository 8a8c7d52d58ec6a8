/**
 * The survey's quality in one line: the leave-one-point-out error of the radio map built from it
 * (`RadioMap.interpolation.looRmsDb`), judged as docs/positioning.md says ("above ~5 dB, the
 * survey is too sparse or an anchor moved").
 */
import type { Site } from '../../positioning/site.js'
import { RadioMap } from '../../positioning/radio-map.js'
import type { SurveyPoints } from '../../positioning/survey.js'

/** dB RMS of leave-one-point-out error above which a survey is judged too sparse (docs/positioning.md). */
export const SURVEY_LOO_LIMIT_DB = 5

/** The one-line judgement of a leave-one-point-out error. */
export function surveyQualityLine(looRmsDb: number, points: number): string {
  const error = `leave-one-point-out error ${looRmsDb.toFixed(1)} dB RMS over ${points} points`
  if (!Number.isFinite(looRmsDb))
    return `survey quality: not measurable (${points} points heard a gateway the site places); survey more points`
  if (looRmsDb > SURVEY_LOO_LIMIT_DB)
    return (
      `survey quality: ${error}: above ~${SURVEY_LOO_LIMIT_DB} dB, the survey is too sparse or ` +
      `a gateway moved; add points or survey again (docs/positioning.md)`
    )
  return `survey quality: ${error}: good (under ~${SURVEY_LOO_LIMIT_DB} dB)`
}

/**
 * Builds the radio map of `survey` on `site` and judges it; a survey the site cannot use says
 * why instead of throwing (the samples are already on disk; only the judgement is missing).
 */
export function surveyQuality(site: Site, survey: SurveyPoints): string {
  try {
    const map = RadioMap.fromSurvey(site, survey)
    return surveyQualityLine(map.interpolation?.looRmsDb ?? Number.NaN, survey.points().length)
  } catch (error) {
    return `survey quality: not measurable: ${error instanceof Error ? error.message : String(error)}`
  }
}
