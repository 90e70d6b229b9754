// SPDX-License-Identifier: GPL-2.0-only
//
// The accuracy report's figures: a gnuplot script whose every series is a
// two-column CSV under plot-data/, and the one place that runs gnuplot.
#ifndef HOCKNEY_ACCURACY_PLOT_H
#define HOCKNEY_ACCURACY_PLOT_H

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/// One series of a figure: a CSV with fixed columns x,y.
struct PlotSeries
{
    PlotSeries(std::string f, std::string t, std::string s = "")
        : file(std::move(f)),
          title(std::move(t)),
          style(std::move(s))
    {
    }

    std::string file;
    std::string title;
    std::string style; ///< "" : the figure's style
};

/// One figure of the script.
struct PlotFigure
{
    std::string png;
    std::string title;
    std::string xlabel;
    std::string ylabel;
    bool logx = false;
    bool logy = false;
    std::string style = "linespoints"; ///< of the series that name none
};

/// \p s with every character but letters, digits, '-' and '_' as '_'.
std::string SafeName(std::string s);

/// Writes \p xy to DIR/plot-data/NAME.csv (NAME made safe); returns the path.
std::string WritePlotSeries(const std::string& dir, const std::string& name, const std::vector<std::pair<double, double>>& xy);

/// The script's opening lines: PNG terminal, CSV input, grid, key.
void WritePlotPreamble(std::ostream& gp);

/// One figure of \p series into the script.
void WritePlotFigure(std::ostream& gp, const PlotFigure& figure, const std::vector<PlotSeries>& series);

/// Runs gnuplot on DIR/SCRIPT in \p dir (its log in DIR/gnuplot.log); a missing
/// gnuplot or a failed script is a std::runtime_error saying how to install it.
void RunGnuplot(const std::string& dir, const std::string& script);

} // namespace ns3

#endif
