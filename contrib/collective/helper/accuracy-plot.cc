// SPDX-License-Identifier: GPL-2.0-only
#include "accuracy-plot.h"

#include "result-row.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <stdexcept>

namespace ns3
{


std::string
SafeName(std::string s)
{
    for (char& ch : s)
    {
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_')
        {
            ch = '_';
        }
    }
    return s;
}

std::string
WritePlotSeries(const std::string& dir, const std::string& name, const std::vector<std::pair<double, double>>& xy)
{
    const std::string file = dir + "/plot-data/" + SafeName(name) + ".csv";
    std::ofstream f(file);
    if (!f)
    {
        throw std::runtime_error("cannot write " + file);
    }
    WriteCsvProvenance(f); // gnuplot skips the '#' lines
    f << "x,y\n";
    for (const auto& [x, y] : xy)
    {
        f << std::setprecision(10) << x << "," << y << "\n";
    }
    return file;
}

void
WritePlotPreamble(std::ostream& gp)
{
    gp << "# written by hockney validate / demo\n"
       << "set terminal pngcairo size 1000,650 font ',10'\nset datafile separator ','\nset grid\n"
       << "set key outside right top\n";
}

void
WritePlotFigure(std::ostream& gp, const PlotFigure& f, const std::vector<PlotSeries>& series)
{
    gp << "set output '" << f.png << "'\n"
       << "set title \"" << f.title << "\" noenhanced\n"
       << "set xlabel '" << f.xlabel << "'\nset ylabel '" << f.ylabel << "'\n"
       // Engineering suffixes (1k, 10M) only on log axes of sizes; a linear
       // axis (time in us) would round 1.5k to "2k".
       << (f.logx ? "set logscale x\nset format x '%.0s%c'\n" : "unset logscale x\nset format x '%g'\n")
       << (f.logy ? "set logscale y\n" : "unset logscale y\n") << "plot ";
    for (size_t i = 0; i < series.size(); ++i)
    {
        gp << (i ? ", \\\n     " : "") << "'" << series[i].file << "' skip 1 using 1:2 with "
           << (series[i].style.empty() ? f.style : series[i].style) << " title \"" << series[i].title
           << "\" noenhanced";
    }
    gp << "\n";
}

void
RunGnuplot(const std::string& dir, const std::string& script)
{
    const std::string cmd = "cd " + ShellQuote(dir) + " && gnuplot " + ShellQuote(script) + " 2> gnuplot.log";
    if (std::system(cmd.c_str()) != 0)
    {
        throw std::runtime_error("gnuplot failed (see " + dir + "/gnuplot.log; ./hockney setup installs gnuplot-nox)");
    }
}

} // namespace ns3
