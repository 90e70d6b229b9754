// SPDX-License-Identifier: GPL-2.0-only
#include "calibration-least-squares.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>

#include <cmath>
#include <utility>

namespace ns3
{
namespace calibration
{

namespace
{

struct NlinearData
{
    const Points* pts;
    std::function<double(const double*, const FitPoint&)> f;
};

int
NlinearResiduals(const gsl_vector* x, void* data, gsl_vector* out)
{
    auto* d = static_cast<NlinearData*>(data);
    for (size_t i = 0; i < d->pts->size(); ++i)
    {
        const FitPoint& pt = (*d->pts)[i];
        double v = d->f(x->data, pt);
        gsl_vector_set(out, i, std::isfinite(v) ? (v - pt.y) / pt.y : 1e30);
    }
    return GSL_SUCCESS;
}

} // namespace

bool
RelativeLinearFit(const Points& pts,
                  size_t p,
                  const std::function<void(const FitPoint&, double*)>& row,
                  std::vector<double>& b)
{
    size_t n = pts.size();
    if (n < p)
    {
        return false;
    }
    gsl_matrix* X = gsl_matrix_alloc(n, p);
    gsl_vector* y = gsl_vector_alloc(n);
    gsl_vector* w = gsl_vector_alloc(n);
    gsl_vector* c = gsl_vector_alloc(p);
    gsl_matrix* cov = gsl_matrix_alloc(p, p);
    gsl_multifit_linear_workspace* work = gsl_multifit_linear_alloc(n, p);
    std::vector<double> r(p);
    for (size_t i = 0; i < n; ++i)
    {
        row(pts[i], r.data());
        for (size_t j = 0; j < p; ++j)
        {
            gsl_matrix_set(X, i, j, r[j]);
        }
        gsl_vector_set(y, i, pts[i].y);
        gsl_vector_set(w, i, 1.0 / (pts[i].y * pts[i].y));
    }
    double chisq = 0;
    int status = gsl_multifit_wlinear(X, w, y, c, cov, &chisq, work);
    b.assign(p, 0);
    bool ok = status == GSL_SUCCESS;
    for (size_t j = 0; j < p; ++j)
    {
        b[j] = gsl_vector_get(c, j);
        ok = ok && std::isfinite(b[j]);
    }
    gsl_multifit_linear_free(work);
    gsl_matrix_free(cov);
    gsl_vector_free(c);
    gsl_vector_free(w);
    gsl_vector_free(y);
    gsl_matrix_free(X);
    return ok;
}

bool
NonNegativeInterceptFit(const Points& pts,
                        const std::function<double(const FitPoint&)>& col,
                        std::vector<double>& b)
{
    if (!RelativeLinearFit(pts, 2, [&](const FitPoint& pt, double* r) { r[0] = 1; r[1] = col(pt); }, b))
    {
        return false;
    }
    if (b[0] < 0)
    {
        std::vector<double> b1;
        if (!RelativeLinearFit(pts, 1, [&](const FitPoint& pt, double* r) { r[0] = col(pt); }, b1))
        {
            return false;
        }
        b = {0.0, b1[0]};
    }
    return true;
}

bool
RelativeNonlinearFit(const Points& pts,
                     std::function<double(const double*, const FitPoint&)> f,
                     std::vector<double>& x)
{
    size_t n = pts.size();
    size_t p = x.size();
    if (n <= p)
    {
        return false;
    }
    NlinearData data{&pts, std::move(f)};
    gsl_multifit_nlinear_fdf fdf;
    fdf.f = NlinearResiduals;
    fdf.df = nullptr;
    fdf.fvv = nullptr;
    fdf.n = n;
    fdf.p = p;
    fdf.params = &data;
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace* w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, n, p);
    gsl_vector_view x0 = gsl_vector_view_array(x.data(), p);
    gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
    int info = 0;
    int status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, nullptr, nullptr, &info, w);
    bool ok = status == GSL_SUCCESS || status == GSL_EMAXITER;
    gsl_vector* xr = gsl_multifit_nlinear_position(w);
    for (size_t j = 0; j < p; ++j)
    {
        x[j] = gsl_vector_get(xr, j);
        ok = ok && std::isfinite(x[j]);
    }
    gsl_multifit_nlinear_free(w);
    return ok;
}

} // namespace calibration
} // namespace ns3
