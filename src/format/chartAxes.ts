/**
 * Chart axes that tell the truth, for uPlot in the browser (the dashboard and the simulate report):
 * - the axis is as wide as its longest label (uPlot's default 50 px clips "57,500" to "7,500" and
 *   drops the minus of "-0.005");
 * - tick labels carry as many decimals as the tick step needs, thousands separators and signs
 *   (`tickLabels` in units.ts), ratios as percentages;
 * - a flat series gets a small range around its value (uPlot makes a flat 0 into 0–100);
 * - time labels are one line, UTC, and spaced so the first does not run into the second.
 * Plain browser JS (a string): it defines `perpbotAxes` next to the functions of `BROWSER_FORMAT_JS`.
 */
import { BROWSER_FORMAT_JS } from './units.ts'

const AXES_JS = `
var perpbotAxes = (function () {
  function size(u, values, axisIdx, cycleNum) {
    var axis = u.axes[axisIdx];
    if (cycleNum > 1 && axis._size) return axis._size;
    var longest = 0;
    if (values && values.length) {
      var ctx = u.ctx, prev = ctx.font;
      ctx.font = axis.font[0];
      for (var i = 0; i < values.length; i++) {
        var w = ctx.measureText(String(values[i])).width;
        if (w > longest) longest = w;
      }
      ctx.font = prev;
      longest = longest / (uPlot.pxRatio || 1);
    }
    var ticks = axis.ticks && axis.ticks.show !== false ? (axis.ticks.size || 10) : 0;
    return Math.ceil(Math.max(40, longest + ticks + (axis.gap || 5) + 8));
  }
  function values(scale, suffix) {
    return function (u, splits, axisIdx, space, incr) { return tickLabels(splits, incr, scale, suffix || ''); };
  }
  function range(u, min, max) {
    if (min == null || max == null || !isFinite(min) || !isFinite(max)) return [-1, 1];
    if (min === max) {
      var d = min === 0 ? 1 : Math.abs(min) * 0.01;
      return [min - d, max + d];
    }
    var pad = (max - min) * 0.05;
    return [min - pad, max + pad];
  }
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function timeValues(u, splits, axisIdx, space, incr) {
    var span = splits.length > 1 ? splits[splits.length - 1] - splits[0] : 0;
    var out = [];
    for (var i = 0; i < splits.length; i++) {
      var d = new Date(splits[i] * 1000);
      var hm = two(d.getUTCHours()) + ':' + two(d.getUTCMinutes());
      var label = incr < 60 ? hm + ':' + two(d.getUTCSeconds()) : hm;
      if (span >= 86400) label = two(d.getUTCMonth() + 1) + '-' + two(d.getUTCDate()) + ' ' + label;
      out.push(label);
    }
    return out;
  }
  /** An x axis of UTC times and a y axis sized to its labels; 'scale' 100 with suffix '%' for ratios. */
  return {
    x: function (base) { return Object.assign({}, base || {}, { space: 90, values: timeValues }); },
    y: function (base, scale, suffix) {
      return Object.assign({}, base || {}, { size: size, values: values(scale || 1, suffix || '') });
    },
    range: range,
  };
})();
`

/** The formatting functions and `perpbotAxes`, to inline in a page's script. */
export const CHART_AXES_JS = `${BROWSER_FORMAT_JS}\n${AXES_JS}`
